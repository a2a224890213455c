export { Supervisor } from './supervisor';
export { HOT_PATH_NODE_ARGS } from './services';
