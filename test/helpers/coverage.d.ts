export function filesRunBy(dir: string, work: () => Promise<unknown>): Promise<string[]>;
