import { simpleRead } from '../../../shared/descriptions/simpleRead';

/** GET /billing/plans (public): offers; purchases happen in the dashboard, not through the API. */
export const { description, execute } = simpleRead('account', 'getPlans', '/billing/plans');
