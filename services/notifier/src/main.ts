import { serviceMain } from '@relay/shared';
import { startNotifier } from './index';

serviceMain('notifier', startNotifier);
