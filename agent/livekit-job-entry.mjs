// The file LiveKit's job processes load. They are plain Node processes (no TypeScript loader is inherited from a
// test runner or a bundler), so this registers tsx before importing the job itself.
import { register } from 'tsx/esm/api';

register();
const job = await import('./livekit-job.ts');

export default job.default;
