// Worker-thread entry of bench:compare (plain JS so the thread starts whether
// or not the parent runs under tsx; registers tsx when .ts cannot be imported).
let mod;
try {
  mod = await import('./solve-task.ts');
} catch (err) {
  if (err?.code !== 'ERR_UNKNOWN_FILE_EXTENSION' && !/Unknown file extension/.test(String(err?.message))) throw err;
  const { register } = await import('tsx/esm/api');
  register();
  mod = await import('./solve-task.ts?tsx=1');
}
export default mod.runSolveTask;
