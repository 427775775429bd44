/**
 * The run budget (Create's "Max Credits for This Run") on its own: creates sent side by side, and what a
 * failed create gives back. Emulator tests (test/integration/job.test.ts) cover it through the node.
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Job } from '../../nodes/shared/jobs/job';
import { RunBudget } from '../../nodes/shared/jobs/run';

const node: INode = {
	id: 'n1',
	name: 'Create',
	type: 'n8n-nodes-generation-service.generationServiceJob',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const ctx = { getNode: () => node } as unknown as IExecuteFunctions;
const quote = { reservedCredits: 8, available: 1000, keyRemaining: null, sufficient: true };
const take = (budget: RunBudget, key: string, limit = 20) =>
	budget.take(ctx, { limit, quote, idempotencyKey: key, itemIndex: 0 });
const job = (id: string): Job => ({ id, reservedCredits: 8 }) as unknown as Job;
const refused = (httpCode: string) =>
	new NodeApiError(node, { error: { code: 'x' } }, { httpCode, message: 'refused' });

describe('the run budget', () => {
	it('creates sent side by side take the budget before they are sent: the one that does not fit fails', () => {
		const budget = new RunBudget();
		take(budget, 'key-a'); // on its way, not answered yet
		take(budget, 'key-b');
		expect(() => take(budget, 'key-c')).toThrow(
			"Max Credits for This Run is 20 credits and 16 are already reserved (by no job of this run yet; 16 held for creates on their way or whose outcome is unknown), so this item's job, quoted at 8, would go over it.",
		);
	});

	it('a create that brings the run exactly to its budget is sent; one credit more is not', () => {
		const budget = new RunBudget();
		budget.settle(take(budget, 'key-a', 16), job('job_a'));
		take(budget, 'key-b', 16); // 8 + 8 = 16: exactly the budget
		expect(budget.reserved()).toBe(16);
		expect(() => take(budget, 'key-c', 23)).toThrow(
			"Max Credits for This Run is 23 credits and 16 are already reserved (by 1 job of this run: job_a; 8 held for creates on their way or whose outcome is unknown), so this item's job, quoted at 8, would go over it.",
		);
		take(budget, 'key-c', 24); // 16 + 8 = 24
	});

	it('gives the credits back when the service created nothing, keeps them when the outcome is unknown', () => {
		const budget = new RunBudget();
		budget.failed(take(budget, 'key-a'), refused('402'));
		budget.failed(take(budget, 'key-b'), refused('503'));
		expect(budget.reserved()).toBe(0);
		budget.failed(take(budget, 'key-c'), new NodeOperationError(node, 'connection reset'));
		budget.failed(take(budget, 'key-d'), refused('500'));
		expect(budget.reserved()).toBe(16);
	});

	it('a job counts once, however the run got it', () => {
		const budget = new RunBudget();
		budget.settle(take(budget, 'key-a'), job('job_a'));
		budget.settle(take(budget, 'key-a'), job('job_a')); // a replay: same key, same job
		budget.count(job('job_a')); // and picked up again
		expect(budget.reserved()).toBe(8);
	});
});
