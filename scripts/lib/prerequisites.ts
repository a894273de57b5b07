/**
 * Tests that need something outside npm (Chromium, PostgreSQL, cargo) fail
 * with one line that names the script installing it, not a stack trace.
 */
export const SETUP_HINT =
  'run "bash scripts/setup-test-deps.sh" (Debian/Ubuntu, as root or with sudo) to install the test prerequisites';

/** An error whose whole report is its one-line message. */
export class MissingPrerequisite extends Error {
  constructor(what: string) {
    super(`${what} is missing: ${SETUP_HINT}.`);
    this.stack = this.message;
  }
}
