import { readOperation } from '../../../shared/operations';

/** GET /billing/plans (public): offers; purchases happen in the dashboard, not through the API. */
export const { description, execute } = readOperation('account', 'getPlans', '/billing/plans');
