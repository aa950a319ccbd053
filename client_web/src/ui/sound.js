// @ts-check
// The win's chime: four rising notes synthesized with Web Audio (our own sound, no file to load). Played only
// when the player turned the sound on (settings.sound, off by default).
const NOTES = [523.25, 659.25, 783.99, 1046.5]; // C5 E5 G5 C6
const STEP_S = 0.11;
const NOTE_S = 0.5;

/** @type {AudioContext | null} */
let ctx = null;

/** Play the chime; false where the browser has no Web Audio. */
export function chime() {
  /** @type {typeof AudioContext | undefined} */
  const Audio = globalThis.AudioContext ?? /** @type {{webkitAudioContext?: typeof AudioContext}} */ (globalThis).webkitAudioContext;
  if (!Audio) return false;
  const audio = (ctx ??= new Audio());
  if (audio.state === "suspended") audio.resume().catch(() => {});
  const start = audio.currentTime + 0.02;
  NOTES.forEach((freq, i) => {
    const at = start + i * STEP_S;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = "triangle";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.18, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + NOTE_S);
    osc.connect(gain).connect(audio.destination);
    osc.start(at);
    osc.stop(at + NOTE_S + 0.05);
  });
  return true;
}
