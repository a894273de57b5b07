// Piscina entry point for the solver worker (plain JS so the thread can start
// whether or not the parent runs under tsx). If TypeScript files cannot be
// imported (no tsx loader inherited through execArgv), register tsx first.
let mod;
try {
  mod = await import('./worker.ts');
} catch (err) {
  if (err?.code !== 'ERR_UNKNOWN_FILE_EXTENSION' && !/Unknown file extension/.test(String(err?.message))) throw err;
  const { register } = await import('tsx/esm/api');
  register();
  mod = await import(`./worker.ts?tsx=1`);
}
export default mod.default;
