import { serviceMain } from '@relay/shared';
import { startWallet, WALLET_DATABASE_POOL } from './index';

serviceMain('wallet', startWallet, { primaryPool: WALLET_DATABASE_POOL });
