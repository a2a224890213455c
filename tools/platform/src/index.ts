export { Supervisor } from './supervisor';
