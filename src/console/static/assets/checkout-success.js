// The page Stripe sends a customer back to: asks the service about the checkout
// session in the address (?session_id=cs_…) and says what happens next, or that
// the session is unknown. Never thanks anyone for a payment it cannot see.
import { callApi, showError } from './api.js';
import { count } from './format.js';

const title = document.getElementById('title');
const status = document.getElementById('checkout-status');
const error = document.getElementById('checkout-error');

function say(heading, ...paragraphs) {
  title.textContent = heading;
  document.title = `${heading} · Route Optimization Service`;
  status.replaceChildren(
    ...paragraphs.map((text) => {
      const p = document.createElement('p');
      p.textContent = text;
      return p;
    }),
  );
}

const to = (s) => (s.emailHint ? ` to ${s.emailHint}` : '');
const stops = (s) => (s.stops ? `${count(s.stops)} stops` : 'your stops');

const MESSAGES = {
  paid: (s) =>
    s.createdKey
      ? [
          'Payment received',
          `${stops(s)} are on a new live key ending in …${s.keyLast4}.`,
          s.mailSent
            ? `The key was e-mailed${to(s)}; check your spam folder if it is not in your inbox.`
            : `The key is being e-mailed${to(s)}; it usually arrives within a few minutes.`,
          'The key is shown only in that e-mail. Keep it secret: every call made with it is debited one stop per stop sent.',
        ]
      : [
          'Payment received',
          `${stops(s)} were added to your live key ending in …${s.keyLast4}; keep using the same key.`,
          s.mailSent ? `A confirmation was e-mailed${to(s)}.` : `A confirmation is being e-mailed${to(s)}.`,
        ],
  confirming: (s) => [
    'Payment received',
    `Stripe confirmed the payment for ${stops(s)}. Your live key is being prepared and will be e-mailed${to(s)} within a few minutes.`,
    'You can close this page; reload it to see when the key has been sent.',
  ],
  processing: (s) => [
    'Payment processing',
    `Your payment for ${stops(s)} is not confirmed yet (bank debits such as SEPA can take a few working days).`,
    `The live key is e-mailed${to(s)} as soon as the payment clears. Nothing else to do.`,
  ],
  open: () => [
    'Payment not finished',
    'This checkout has not been paid yet. Go back to the payment page to finish it, or choose a pack again from the console.',
  ],
  expired: () => [
    'Payment page expired',
    'This checkout expired before it was paid. Nothing was charged; choose a pack again from the console.',
  ],
  unknown: () => [
    'Unknown payment session',
    'This service knows no checkout session with the id in this address, so there is nothing to confirm and no key will be sent for it.',
    'If you paid, the key is e-mailed to the address you gave; otherwise choose a pack from the console.',
  ],
};

async function check() {
  const sessionId = new URLSearchParams(location.search).get('session_id');
  if (!sessionId) {
    say(
      'No payment to show',
      'This page is shown after a payment, with the checkout session in its address. There is none here, so there is nothing to confirm.',
    );
    return;
  }
  try {
    const { body } = await callApi(`/console/api/checkout-sessions/${encodeURIComponent(sessionId)}`);
    const message = MESSAGES[body && body.state] ?? MESSAGES.unknown;
    say(...message(body ?? {}));
  } catch (err) {
    say(
      'Payment status unavailable',
      'The service could not check this payment right now. If you paid, your key is e-mailed anyway.',
    );
    showError(error, err);
  }
}

void check();
