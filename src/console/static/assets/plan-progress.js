// The fleet playground's background plans: when a plan goes as a job, its progress while the solver works
// (time used of its budget, the best plan so far) and the button that stops it and keeps that plan.
import { ApiFailure, showError } from './api.js';
import { count, duration } from './format.js';
import { cancelPlanJob, runPlanJob } from './plan-job.js';

const $ = (id) => document.getElementById(id);

/** Plans with more stops than this always run in the background. */
export const BACKGROUND_ABOVE_STOPS = 200;

/** Does this plan run as a job: asked for, or too big to wait on one call? */
export function inBackground(request) {
  return $('plans-async').checked || request.stops.length > BACKGROUND_ABOVE_STOPS;
}

/** The job's own budget, from its field (empty: the service's budget rule). */
function budgetField() {
  const text = $('plans-time-limit').value.trim();
  if (!text) return {};
  const seconds = Number(text);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 600)
    throw new Error('Solve for: a whole number of seconds from 1 to 600, or empty for the usual budget.');
  return { timeLimitSeconds: seconds };
}

/**
 * Runs `request` as a job and shows how it goes; resolves with the finished job when it has a plan (succeeded, or
 * stopped with its best plan kept); a failed job, or one stopped before any plan, throws.
 */
export async function planInBackground(request, key, { status, error }) {
  const box = $('plans-job');
  const stop = $('plans-job-stop');
  const stops = request.stops.length;
  let id = null;
  const onStop = async () => {
    stop.disabled = true;
    status.textContent = 'Stopping: the best plan found so far will be kept…';
    try {
      await cancelPlanJob(id, key);
    } catch (err) {
      showError(error, err, 'The plan could not be stopped:');
      stop.disabled = false;
    }
  };
  const job = { ...request, ...budgetField() };
  box.hidden = false;
  delete box.dataset.jobId;
  stop.disabled = true;
  show(
    { status: 'queued', progress: { elapsedMs: 0, budgetMs: 1, improvements: 0, assigned: 0, objective: null } },
    stops,
  );
  stop.addEventListener('click', onStop);
  try {
    const done = await runPlanJob(job, {
      key,
      onAccepted: (accepted) => {
        id = accepted.id;
        box.dataset.jobId = accepted.id;
        stop.disabled = false;
        status.textContent = `Planning in the background (job ${accepted.id})…`;
      },
      onJob: (state) => show(state, stops),
    });
    if (done.status === 'failed')
      throw new ApiFailure(0, done.error?.error ?? 'optimization_failed', done.error?.message ?? 'The plan failed.');
    if (!done.result) throw new Error('Stopped before the solver had a plan: nothing was charged.');
    return done;
  } finally {
    stop.removeEventListener('click', onStop);
    stop.disabled = true;
  }
}

/** The progress bar and its figures for the job as it stands. */
function show(job, stops) {
  const { elapsedMs, budgetMs, improvements, assigned, objective } = job.progress;
  const box = $('plans-job');
  box.dataset.status = job.status;
  box.dataset.improvements = String(improvements);
  const bar = $('plans-job-bar');
  bar.max = budgetMs;
  bar.value = Math.min(elapsedMs, budgetMs);
  const time = `${(elapsedMs / 1000).toFixed(1)} s of ${(budgetMs / 1000).toFixed(0)} s`;
  $('plans-job-figures').textContent =
    job.status === 'queued'
      ? 'Queued: waiting for a solver…'
      : improvements === 0
        ? `${time} · placing the stops…`
        : `${time} · ${count(improvements)} better plans found · best so far: ${count(assigned)} of ${count(stops)} stops, routes of ${objective === null ? '—' : duration(objective)} in all`;
}
