import { serviceMain } from '@relay/shared';
import { startLauncher } from './index';

serviceMain('launcher', startLauncher);
