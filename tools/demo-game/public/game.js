/* global document, window, fetch, URL, URLSearchParams */
/*
 * The demo game page. It knows only the sessionId from its address; the game backend (/demo/*)
 * holds the game provider token, validates the session with the relay and plays every round.
 * The other launch parameters are untrusted and used for presentation only (the back link).
 */
'use strict';

const params = new URLSearchParams(window.location.search);
const sessionId = params.get('sessionId');
const $ = (id) => document.getElementById(id);
let currency = '';

function money(value) {
  return Number(value).toFixed(2);
}

function showError(message) {
  const box = $('error');
  box.textContent = message;
  box.hidden = !message;
}

async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(answer.message || `The game answered ${res.status}.`);
  return answer;
}

/** backtoHome is a link target only, and only an http(s) one. */
function showBackLink() {
  const target = params.get('backtoHome');
  if (!target) return;
  try {
    const url = new URL(target);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    $('back').href = url.href;
    $('back').hidden = false;
  } catch {
    // not a URL: no link
  }
}

function cell(row, text, className) {
  const td = document.createElement('td');
  td.textContent = text === undefined || text === null ? '' : String(text);
  if (className) td.className = className;
  row.appendChild(td);
  return td;
}

function fillTable(id, items, columns) {
  const body = $(id).querySelector('tbody');
  body.replaceChildren();
  if (items.length === 0) {
    const row = body.insertRow();
    row.className = 'empty';
    cell(row, 'Nothing yet.').colSpan = columns.length;
    return;
  }
  for (const item of items) {
    const row = body.insertRow();
    for (const [value, className] of columns.map((c) => c(item))) cell(row, value, className);
  }
}

const shortId = (id) => (id && id.length > 14 ? `${id.slice(0, 13)}…` : id);
const time = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '');

async function loadHistory() {
  const history = await api('GET', `/demo/history?${new URLSearchParams({ sessionId })}`);
  fillTable('rounds', history.rounds, [
    (r) => [shortId(r.roundId), 'id'],
    (r) => [money(r.betAmount), 'num'],
    (r) => [r.payoutAmount === undefined || r.payoutAmount === null ? '' : money(r.payoutAmount), 'num'],
    (r) => [r.settleReason || ''],
    (r) => [r.status, `status-${r.status}`],
  ]);
  fillTable('transactions', history.transactions, [
    (t) => [time(t.createdAt)],
    (t) => [t.category],
    (t) => [money(t.amount), 'num'],
    (t) => [t.reason || ''],
    (t) => [t.errorCode ? `${t.status} (${t.errorCode})` : t.status, `status-${t.status}`],
    (t) => [t.balance === undefined || t.balance === null ? '' : money(t.balance), 'num'],
  ]);
}

function setupForm(session) {
  const limits = session.limits;
  const amount = $('amount');
  if (limits) {
    amount.value = money(limits.defaultBet);
    amount.min = String(limits.minBet);
    amount.max = String(limits.maxBet);
    $('limits').textContent = `Stake ${money(limits.minBet)} to ${money(limits.maxBet)} ${currency}; max win ${money(limits.maxWin)}.`;
    for (const value of limits.betSuggestions) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = money(value);
      b.addEventListener('click', () => (amount.value = money(value)));
      $('suggestions').appendChild(b);
    }
  } else {
    $('limits').textContent = `No bet limits configured for ${currency}: betting is closed.`;
  }
  session.chances.forEach(({ chance, multiplier }, i) => {
    const label = document.createElement('label');
    label.id = `chance-${chance}`;
    const input = document.createElement('input');
    input.type = 'radio';
    input.name = 'chance';
    input.value = String(chance);
    input.checked = i === 1 || session.chances.length === 1;
    label.append(input, `${chance}% · ${multiplier.toFixed(2)}x`);
    $('chances').appendChild(label);
  });
  $('force-row').hidden = !session.forcedOutcomeAllowed;
  $('roll').disabled = !limits;
  $('bet-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void roll();
  });
}

async function roll() {
  const button = $('roll');
  button.disabled = true;
  showError('');
  document.body.dataset.state = 'rolling';
  try {
    const force = $('force').value;
    const round = await api('POST', '/demo/bet', {
      sessionId,
      amount: Number($('amount').value),
      chance: Number(document.querySelector('input[name=chance]:checked').value),
      ...(force ? { forceOutcome: force } : {}),
    });
    $('balance').textContent = money(round.balance);
    const result = $('result');
    result.hidden = false;
    result.className = `result ${round.won ? 'win' : 'loss'}`;
    result.dataset.roundId = round.roundId;
    $('die').textContent = String(round.roll);
    $('result-outcome').textContent = round.won ? `WIN ${money(round.payout)} ${currency}` : 'LOSS';
    $('result-detail').textContent =
      `Rolled ${round.roll}, needed ${round.chance} or less. Bet ${money(round.betAmount)} at ${money(round.multiplier)}x.` +
      (round.settled ? '' : ' The casino has not confirmed the payout yet; it is being retried.');
  } catch (err) {
    showError(err.message);
  }
  await loadHistory().catch((err) => showError(err.message));
  button.disabled = false;
  // Tests wait on this: the round and the history after it are both on the page.
  document.body.dataset.rolls = String(Number(document.body.dataset.rolls || 0) + 1);
  document.body.dataset.state = 'ready';
}

async function start() {
  showBackLink();
  if (!sessionId) {
    showError('Open this game from the casino lobby.');
    document.body.dataset.state = 'error';
    return;
  }
  try {
    const session = await api('GET', `/demo/session?${new URLSearchParams({ sessionId, ...(params.get('currency') ? { currency: params.get('currency') } : {}) })}`);
    currency = session.currency;
    $('player').textContent = session.username;
    $('balance').textContent = money(session.balance);
    $('currency').textContent = currency;
    document.title = `${session.gameName} · Relay Dice`;
    setupForm(session);
    document.body.dataset.state = 'ready';
    await loadHistory();
  } catch (err) {
    showError(err.message);
    document.body.dataset.state = 'error';
  }
}

void start();
