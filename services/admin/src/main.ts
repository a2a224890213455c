import { serviceMain } from '@relay/shared';
import { startAdmin } from './index';

serviceMain('admin', startAdmin);
