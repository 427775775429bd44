// Each test starts like a fresh n8n process: the one reset of nodes/shared/processState.ts, which knows
// every process-wide store the package keeps (nothing test-only ships).
export { forgetProcessState } from '../../nodes/shared/processState';
