/** The plan checker lives with the benches that use it too (scripts/lib/plan-invariants.ts). */
export { planProblems } from '../../scripts/lib/plan-invariants.js';
