import { serviceMain } from '@relay/shared';
import { startReporting } from './index';

serviceMain('reporting', startReporting);
