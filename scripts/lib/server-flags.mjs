// Node flags of every way the server is started: `npm start` (package.json), the executable
// (sea-config execArgv, scripts/build.mjs), deploy/Containerfile, and the benches' child process
// (service-process.ts). test/unit/server-flags.test.ts holds them to this list.
//
// --max-semi-space-size=16: V8 otherwise lets the young generation grow to 32 MB per semi-space
// once a burst of long-lived allocations goes through it (the gazetteer at start-up, a 1000-stop
// plan's matrix rows), and keeps it: with 16 MB the server's peak during a 1000-stop × 20-van plan
// is 252–257 MB instead of 313 MB, with no measurable change in bench:api's figures
// (docs/benchmarks.md, API throughput, "Plans").
export const SERVER_NODE_FLAGS = Object.freeze(['--max-semi-space-size=16']);
