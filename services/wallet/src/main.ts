import { serviceMain } from '@relay/shared';
import { startWallet } from './index';

serviceMain('wallet', startWallet);
