// The simulated clock: speed, pause/resume and step, through GET/POST /bonsai/v1/clock.
import { useEffect, useState } from 'preact/hooks';
import { getJson, request } from './api.js';
import { rec, str, type Obj } from './model.js';

export function ClockBar() {
  const [clock, setClock] = useState<Obj | undefined>();
  const [msg, setMsg] = useState('');
  const [speed, setSpeed] = useState('');
  const [step, setStep] = useState('10');
  const refresh = () => getJson('/bonsai/v1/clock').then((c) => setClock(rec(c)), (e: unknown) => setMsg(e instanceof Error ? e.message : String(e)));
  useEffect(() => {
    void refresh();
    const t = setInterval(() => void refresh(), 5000);
    return () => clearInterval(t);
  }, []);
  const post = (body: Obj) => {
    request('POST', '/bonsai/v1/clock', body).then((c) => {
      setClock(rec(c));
      setMsg('');
    }, (e: unknown) => setMsg(e instanceof Error ? e.message : String(e)));
  };
  const paused = clock?.paused === true;
  return (
    <div class="clock">
      <span title="simulated time">Clock {str(clock?.now ?? clock?.time) || '—'}</span>
      {clock ? <span> ×{String(clock.speed ?? '?')}{paused ? ' (paused)' : ''}</span> : null}
      <button data-action="clock-pause" onClick={() => post({ action: paused ? 'resume' : 'pause' })}>{paused ? 'Resume' : 'Pause'}</button>
      <input size={3} value={step} onInput={(e) => setStep((e.target as HTMLInputElement).value)} />
      <button data-action="clock-step" onClick={() => post({ action: 'step', seconds: Number(step) })}>Step s</button>
      <input size={3} placeholder="speed" value={speed} onInput={(e) => setSpeed((e.target as HTMLInputElement).value)} />
      <button data-action="clock-speed" onClick={() => post({ action: 'speed', speed: Number(speed) })}>Set speed</button>
      {msg ? <span class="muted"> {msg}</span> : null}
    </div>
  );
}
