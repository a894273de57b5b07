import { runAdminCommand } from '../src/admin/main.js';

process.exitCode = await runAdminCommand(process.argv.slice(2));
