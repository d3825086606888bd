// The header's simulated clock: local time (no milliseconds) and speed, with pause/resume, a step forward by a
// number of simulated seconds and a new speed, through GET/POST /bonsai/v1/clock.
import { useState } from 'preact/hooks';
import { localTime, postClock, simNow, useClock } from './sim-clock.js';

export function ClockBar() {
  const { clock, error } = useClock();
  const [speed, setSpeed] = useState('');
  const [step, setStep] = useState('10');
  const paused = clock?.paused === true;
  const now = simNow();
  const sameDay = new Date(now).toDateString() === new Date().toDateString();
  return (
    <div class="clock">
      <span class="clock-now" title={`Simulated time: ${clock ? new Date(now).toString() : 'unknown'}`}>
        {clock ? localTime(now, !sameDay) : '—'}
      </span>
      {clock ? <span class="clock-speed" title="How fast simulated time runs against real time">×{String(clock.speed)}{paused ? ' paused' : ''}</span> : null}
      <button data-action="clock-pause" title={paused ? 'Let simulated time run again' : 'Stop simulated time (the API stays live)'} onClick={() => postClock({ action: paused ? 'resume' : 'pause' })}>{paused ? 'Resume' : 'Pause'}</button>
      <label title="Move simulated time forward by this many seconds at once (timers due meanwhile fire)">
        Advance <input size={3} value={step} onInput={(e) => setStep((e.target as HTMLInputElement).value)} /> s
      </label>
      <button data-action="clock-step" title="Advance the simulated clock now" onClick={() => postClock({ action: 'step', seconds: Number(step) })}>Step</button>
      <label title="Simulated seconds per real second (1 = real time)">
        Speed × <input size={3} placeholder={clock ? String(clock.speed) : ''} value={speed} onInput={(e) => setSpeed((e.target as HTMLInputElement).value)} />
      </label>
      <button data-action="clock-speed" title="Run the simulated clock at this speed" onClick={() => postClock({ action: 'speed', speed: Number(speed) })}>Set</button>
      {error ? <span class="clock-error" title={error}>clock: {error}</span> : null}
    </div>
  );
}
