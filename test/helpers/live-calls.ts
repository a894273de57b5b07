/** Live-key client traffic and the ledger audit: shared with bench:restart (scripts/lib/live-calls.ts). */
export * from '../../scripts/lib/live-calls.js';
