// The voice-tts page: speak text through /v1/ws, play it with WebAudio, light up each word when
// its audio plays, barge in from the real playback position. Protocol: docs/protocol.md.
'use strict';

const SAMPLE_RATE = 24000;
// Scheduling cushion for a chunk that arrives after its predecessor has finished playing.
const START_LEAD_S = 0.05;
const TICK_MS = 30;

const $ = id => document.getElementById(id);
const ui = {
  engine: $('engine'), voice: $('voice'), language: $('language'), rate: $('rate'),
  rateValue: $('rate-value'), apiKey: $('api-key'), text: $('text'), speak: $('speak'),
  stream: $('stream'), bargeIn: $('barge-in'), reply: $('reply'), heard: $('heard'),
  level: $('level'), levelBar: $('level-bar'), ttfa: $('ttfa'), audio: $('audio'),
  speed: $('speed'), underruns: $('underruns'), status: $('status'),
};

let audio = null;   // {ctx, analyser, samples}
let socket = null;  // {ws, key, opened: Promise}
let turn = null;    // the turn being spoken or still playing

// --- the server ------------------------------------------------------------------------------

function apiKey() { return ui.apiKey.value.trim(); }

async function getJson(path) {
  const headers = apiKey() ? {Authorization: `Bearer ${apiKey()}`} : {};
  const response = await fetch(path, {headers});
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const message = (body.error && body.error.message) || response.statusText;
    throw new Error(`${path}: ${response.status} ${message}`);
  }
  return body;
}

async function loadEngine() {
  try {
    const caps = await getJson('/v1/capabilities');
    const {voices} = await getJson('/v1/voices');
    fillSelect(ui.voice, 'default', voices.map(v => [v.name, voiceLabel(v)]));
    fillSelect(ui.language, 'automatic', caps.languages.map(code => [code, code]));
    ui.engine.textContent = `${caps.backend} · ${caps.model} · ${caps.active_streams}/${caps.capacity} streams busy`;
  } catch (error) {
    ui.engine.textContent = `${error.message}${apiKey() ? '' : ' (enter the API key)'}`;
  }
}

// Presets and cloned voices alike, as GET /v1/voices lists them.
function voiceLabel(voice) {
  const kind = voice.mode ? ' (cloned)' : '';
  return voice.description ? `${voice.name}${kind} — ${voice.description}` : `${voice.name}${kind}`;
}

function fillSelect(select, defaultLabel, entries) {
  const kept = select.value;
  const options = [new Option(defaultLabel, '')].concat(entries.map(([value, label]) => new Option(label, value)));
  select.replaceChildren(...options);
  if (entries.some(([value]) => value === kept)) select.value = kept;
}

function connect() {
  if (socket && socket.key === apiKey() && socket.ws.readyState <= WebSocket.OPEN) return socket.opened;
  if (socket) socket.ws.close();
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = new WebSocket(`${scheme}://${location.host}/v1/ws`);
  ws.binaryType = 'arraybuffer';
  const current = {ws, key: apiKey()};
  current.opened = new Promise((resolve, reject) => {
    ws.onopen = () => {
      // Browsers cannot set headers on a WebSocket: the key is the socket's first message.
      if (current.key) ws.send(JSON.stringify({type: 'auth', api_key: current.key}));
      resolve(ws);
    };
    ws.onerror = () => reject(new Error('cannot connect to /v1/ws'));
  });
  ws.onmessage = event => {
    if (current !== socket || !turn) return;
    if (typeof event.data === 'string') onMessage(JSON.parse(event.data));
    else onAudio(event.data);
  };
  ws.onclose = event => {
    if (current !== socket) return;
    socket = null;
    const reason = {4401: 'an API key is required', 4403: 'the API key is not valid'}[event.code];
    if (turn && !turn.done) {
      finish(turn);
      endTurn(reason || `connection closed (${event.code})`);
    } else if (reason) setStatus(reason);
  };
  socket = current;
  return current.opened;
}

// --- audio -----------------------------------------------------------------------------------

function ensureAudio() {
  if (!audio) {
    const ctx = new AudioContext({latencyHint: 'interactive'});
    const analyser = ctx.createAnalyser();
    analyser.fftSize = 1024;
    analyser.connect(ctx.destination);
    audio = {ctx, analyser, samples: new Float32Array(analyser.fftSize)};
    setInterval(tick, TICK_MS);
  }
  return audio.ctx.resume();
}

// The context time of the sample the listener hears now (output latency taken off).
function heardClock() {
  const ctx = audio.ctx;
  const stamp = ctx.getOutputTimestamp ? ctx.getOutputTimestamp().contextTime : 0;
  if (stamp > 0) return Math.min(stamp, ctx.currentTime);
  return ctx.currentTime - (ctx.outputLatency || 0);
}

function onAudio(buffer) {
  const pcm = new Int16Array(buffer);
  if (!pcm.length || turn.cancelled) return;
  const now = performance.now();
  if (turn.firstAudioAt === null) turn.firstAudioAt = now;
  turn.lastAudioAt = now;
  const ctx = audio.ctx;
  const samples = ctx.createBuffer(1, pcm.length, SAMPLE_RATE);
  const channel = samples.getChannelData(0);
  for (let i = 0; i < pcm.length; i++) channel[i] = pcm[i] / 32768;
  const source = ctx.createBufferSource();
  source.buffer = samples;
  source.connect(audio.analyser);
  let at = turn.nextStart;
  if (at < ctx.currentTime + 0.005) {
    if (turn.chunks.length) turn.underruns++;
    at = ctx.currentTime + START_LEAD_S;
  }
  source.start(at);
  turn.chunks.push({at, startSample: turn.samples, length: pcm.length, source});
  turn.samples += pcm.length;
  turn.nextStart = at + pcm.length / SAMPLE_RATE;
  showFigures();
}

// Milliseconds of this turn's audio the listener has heard at context time `t`; null before
// its first sample. Gaps (late chunks) hold the position where the audio stopped.
function playedMs(t) {
  let position = null;
  for (const chunk of turn.chunks) {
    if (t < chunk.at) break;
    position = chunk.startSample + Math.min(chunk.length, (t - chunk.at) * SAMPLE_RATE);
  }
  return position === null ? null : position / SAMPLE_RATE * 1000;
}

// --- a turn ----------------------------------------------------------------------------------

function newTurn(text) {
  return {
    text, sent: '', words: [], spoken: 0, chunks: [], samples: 0, nextStart: 0, underruns: 0,
    done: false, cancelled: false, pacer: null, onStarted: null, onFinished: null,
    firstTextAt: null, firstAudioAt: null, lastAudioAt: null,
  };
}

// The server's side of `current` is over: `done` came, its start was refused, or the socket closed.
function finish(current) {
  current.done = true;
  if (current.onStarted) current.onStarted(false);
  if (current.onFinished) current.onFinished();
}

async function speak(streamed) {
  const text = ui.text.value;
  if (!text.trim()) { setStatus('type something to say'); return; }
  ui.heard.textContent = '';
  ui.reply.replaceChildren();
  const previous = turn;
  if (previous) {
    bargeIn();
    // One turn at a time per socket: the next `start` waits for the previous turn's `done`.
    if (!previous.done) await new Promise(resolve => { previous.onFinished = resolve; });
  }
  await ensureAudio();
  const current = turn = newTurn(text);
  renderReply();
  showFigures();
  setTurnState('running');
  try {
    const ws = await connect();
    // Barged in (or replaced) while connecting: no turn was started.
    if (current.cancelled) { finish(current); return; }
    current.ws = ws;
    const started = new Promise(resolve => { current.onStarted = resolve; });
    ws.send(JSON.stringify({
      type: 'start', voice: ui.voice.value || null, language: ui.language.value || null,
      sample_rate: SAMPLE_RATE, format: 'pcm16', normalize: true,
    }));
    if (!await started || current !== turn || current.cancelled) return;
    setStatus(streamed ? `streaming at ${ui.rate.value} tokens/s` : 'speaking');
    if (streamed) streamTokens(current, tokenDeltas(text));
    else { sendText(current, text); ws.send(JSON.stringify({type: 'stop'})); }
  } catch (error) {
    finish(current);
    if (current === turn) endTurn(error.message);
  }
}

function sendText(current, text) {
  if (current.firstTextAt === null) current.firstTextAt = performance.now();
  current.sent += text;
  current.ws.send(JSON.stringify({type: 'text', text}));
  renderReply();
}

// `text` cut the way an LLM streams it: each word with its leading whitespace, in pieces of
// 1 to 3 characters.
function tokenDeltas(text) {
  const deltas = [];
  let seed = 1;
  for (let piece of text.match(/\s*\S+|\s+$/g) || []) {
    while (piece) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const size = 1 + seed % 3;
      deltas.push(piece.slice(0, size));
      piece = piece.slice(size);
    }
  }
  return deltas;
}

function streamTokens(current, deltas) {
  let next = 0;
  const send = () => {
    if (current.cancelled || current.done) return;
    if (next < deltas.length) {
      sendText(current, deltas[next++]);
      current.pacer = setTimeout(send, 1000 / Number(ui.rate.value));
    } else {
      current.pacer = null;
      current.ws.send(JSON.stringify({type: 'stop'}));
    }
  };
  send();
}

function onMessage(message) {
  const current = turn;
  switch (message.type) {
    case 'started':
      current.onStarted(true);
      current.onStarted = null;
      break;
    case 'progress':
      for (const word of message.words) {
        const el = document.createElement('span');
        el.className = 'word';
        el.textContent = current.sent.slice(word.raw_start, word.raw_end);
        el.dataset.startMs = word.start_ms;
        current.words.push({...word, el});
      }
      if (message.words.length) renderReply();
      break;
    case 'error':
      setStatus(`${message.code}: ${message.message}`);
      // Without a stream id the message was refused; a refused `start` means no turn.
      if (!message.stream_id && current.onStarted) {
        finish(current);
        endTurn();
      }
      break;
    case 'done':
      finish(current);
      if (current.cancelled) ui.heard.textContent = message.heard_text;
      else setStatus(`done: ${message.usage.audio_seconds.toFixed(2)} s of audio`);
      if (!current.chunks.length) endTurn();
      break;
  }
}

// Barge-in: silence now, and tell the server how much of the turn was actually played.
function bargeIn() {
  const current = turn;
  if (!current || current.cancelled) return;
  clearTimeout(current.pacer);
  const played = current.chunks.length ? (playedMs(heardClock()) || 0) : 0;
  highlight(current, played);
  current.cancelled = true;
  for (const chunk of current.chunks) chunk.source.stop();
  if (!current.done && current.ws && current.ws.readyState === WebSocket.OPEN) {
    current.ws.send(JSON.stringify({type: 'cancel', played_ms: played}));
    setStatus(`barged in at ${(played / 1000).toFixed(2)} s`);
  } else {
    // The server has finished this turn already; the words it sent give what was heard.
    ui.heard.textContent = heardText(current);
    setStatus(`stopped at ${(played / 1000).toFixed(2)} s`);
  }
  endTurn();
}

// Nothing more of this turn is played or shown as spoken.
// The raw text up to the end of the last word whose audio started (`done.heard_text`'s rule, for
// audio still playing after the server's turn ended).
function heardText(current) {
  const last = current.words[current.spoken - 1];
  return last ? current.sent.slice(0, last.raw_end) : '';
}

function endTurn(message) {
  if (message) setStatus(message);
  if (turn) {
    clearTimeout(turn.pacer);
    turn.cancelled = true;
  }
  setTurnState('idle');
}

function setTurnState(state) {
  document.body.dataset.turn = state;
  const busy = state !== 'idle';
  ui.bargeIn.disabled = !busy;
}

// --- what the page shows ---------------------------------------------------------------------

function highlight(current, ms) {
  let changed = false;
  while (current.spoken < current.words.length && current.words[current.spoken].start_ms <= ms) {
    const previous = current.words[current.spoken - 1];
    if (previous) previous.el.classList.remove('current');
    current.words[current.spoken].el.classList.add('spoken', 'current');
    current.spoken++;
    changed = true;
  }
  return changed;
}

function tick() {
  const current = turn;
  if (current && current.chunks.length && !current.cancelled) {
    const clock = heardClock();
    const ms = playedMs(clock);
    if (ms !== null) highlight(current, ms);
    if (current.done && clock >= current.nextStart) {
      ui.heard.textContent = heardText(current);
      endTurn();
    }
  }
  showLevel();
}

function renderReply() {
  const current = turn;
  const parts = [];
  let position = 0;
  for (const word of current.words) {
    if (word.raw_start > position) parts.push(document.createTextNode(current.sent.slice(position, word.raw_start)));
    parts.push(word.el);
    position = word.raw_end;
  }
  const rest = document.createElement('span');
  rest.className = 'unspoken';
  rest.textContent = current.sent.slice(position);
  parts.push(rest);
  ui.reply.replaceChildren(...parts);
}

function showFigures() {
  const current = turn;
  const seconds = current ? current.samples / SAMPLE_RATE : 0;
  const ttfa = current && current.firstAudioAt !== null ? current.firstAudioAt - current.firstTextAt : null;
  ui.ttfa.textContent = ttfa === null ? '–' : `${Math.round(ttfa)} ms`;
  ui.audio.textContent = current && current.samples ? `${seconds.toFixed(2)} s` : '–';
  const wall = current && current.lastAudioAt !== null ? (current.lastAudioAt - current.firstTextAt) / 1000 : 0;
  ui.speed.textContent = wall > 0 ? `${(seconds / wall).toFixed(1)}× real time` : '–';
  ui.underruns.textContent = current ? String(current.underruns) : '–';
}

function showLevel() {
  if (!audio) return;
  audio.analyser.getFloatTimeDomainData(audio.samples);
  let sum = 0;
  for (const x of audio.samples) sum += x * x;
  const rms = Math.sqrt(sum / audio.samples.length);
  // -60 dBFS .. 0 dBFS over the meter's width.
  const percent = rms > 0 ? Math.max(0, Math.min(100, (20 * Math.log10(rms) + 60) / 60 * 100)) : 0;
  ui.levelBar.style.width = `${percent}%`;
  ui.level.setAttribute('aria-valuenow', String(Math.round(percent)));
}

function setStatus(text) { ui.status.textContent = text; }

// --- controls --------------------------------------------------------------------------------

ui.speak.addEventListener('click', () => speak(false));
ui.stream.addEventListener('click', () => speak(true));
ui.bargeIn.addEventListener('click', bargeIn);
ui.rate.addEventListener('input', () => { ui.rateValue.value = ui.rate.value; });
ui.apiKey.addEventListener('change', () => {
  sessionStorage.setItem('voice-tts-api-key', apiKey());
  loadEngine();
});
document.addEventListener('keydown', event => {
  if (event.key === 'Escape') { bargeIn(); return; }
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    speak(event.shiftKey);
  }
});

ui.apiKey.value = sessionStorage.getItem('voice-tts-api-key') || '';
setTurnState('idle');
loadEngine();
