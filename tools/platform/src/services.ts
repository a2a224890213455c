import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');

/**
 * The processes of the platform, in start order. Shutdown runs in reverse: the gateway stops
 * accepting first, workers and services drain after it.
 */
export const PROCESSES: { name: string; script: string }[] = [
  { name: 'admin', script: 'services/admin/dist/main.js' },
  { name: 'launcher', script: 'services/launcher/dist/main.js' },
  { name: 'wallet', script: 'services/wallet/dist/main.js' },
  { name: 'reporting', script: 'services/reporting/dist/main.js' },
  { name: 'notifier', script: 'services/notifier/dist/main.js' },
  { name: 'notifier-worker', script: 'services/notifier/dist/worker.js' },
  { name: 'gateway', script: 'services/gateway/dist/main.js' },
];
