export { Supervisor } from './supervisor';
export { HOT_PATH_NODE_ARGS } from './services';
export { localServer, ownCluster, serverBinaries, type LocalServer } from './local-postgres';
