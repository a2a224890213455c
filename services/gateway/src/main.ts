import { serviceMain } from '@relay/shared';
import { startGateway } from './index';

serviceMain('gateway', startGateway);
