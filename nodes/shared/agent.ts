// How the nodes behave as tools of an AI agent (n8n's "usableAsTool").
import type { INode, INodeExecutionData } from 'n8n-workflow';

/**
 * Whether the node runs as a tool of an AI agent or of an MCP client. n8n wraps a node declared
 * `usableAsTool` in a node type named `<package>.<name>Tool` and runs that type when an agent calls it
 * (n8n 2.x runs it as a node of the workflow on the agent's request, 1.x inside the agent) and when n8n's
 * MCP Server Trigger serves it (inside the trigger's webhook handler): `getNode().type` is the one sign
 * they all give.
 */
export function runsAsTool(ctx: { getNode(): INode }): boolean {
	return ctx.getNode().type.endsWith('Tool');
}

/**
 * A tool answer carries no binary data: n8n hands a model only the items' JSON, so a file would be read,
 * stored and thrown away. Each item that had one says which fields were left out and how to get them.
 */
export function withoutBinary(items: INodeExecutionData[]): INodeExecutionData[] {
	return items.map((item) => {
		if (!item.binary || Object.keys(item.binary).length === 0) return item;
		const { binary, ...rest } = item;
		return {
			...rest,
			json: {
				...item.json,
				binaryOmitted: `${Object.keys(binary).join(', ')}: files are not sent to an AI agent; use the node in a workflow to get them`,
			},
		};
	});
}
