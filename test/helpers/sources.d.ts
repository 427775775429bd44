export function sourceFiles(dir: string): string[];
export function readSource(repoPath: string): string;
