// Hangar's one script. Every page works without it; it adds confirmations before destructive
// forms, and follows a run's log while the run is going. No inline script exists anywhere
// (the Content-Security-Policy forbids it), so behaviour hangs off data- attributes.
'use strict';

document.addEventListener('submit', (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
  if (question && !window.confirm(question)) event.preventDefault();
});

// <pre data-follow="URL"> shows a log; while data-follow is set, the page asks URL for the text
// every two seconds and stops when the answer says the run is done.
for (const pre of document.querySelectorAll('pre[data-follow]')) {
  const url = pre.dataset.follow;
  const status = document.getElementById(pre.dataset.status || '');
  const poll = async () => {
    try {
      const response = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
      if (response.status === 401 || response.redirected) return window.location.reload();
      if (!response.ok) return setTimeout(poll, 5000);
      const body = await response.json();
      if (pre.textContent !== body.log) pre.textContent = body.log;
      if (status && body.status) status.textContent = body.status;
      if (body.done) return window.location.reload();
    } catch {
      // A dropped connection: try again a little later.
    }
    setTimeout(poll, 2000);
  };
  setTimeout(poll, 2000);
}
