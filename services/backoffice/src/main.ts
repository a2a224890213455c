import { serviceMain } from '@relay/shared';
import { startBackoffice } from './index';

serviceMain('backoffice', startBackoffice);
