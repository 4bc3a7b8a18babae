import { z } from 'zod';

// What a LiveKit job process needs from its worker. The framework starts job processes itself, with `fork(entry,
// [agentFile])` and no options (@livekit/agents 1.9, dist/ipc/job_proc_executor.js), and then sends them only its own
// messages (its logger's options, the job LiveKit assigned); ServerOptions carries nothing of ours to them. A job
// process thus inherits the worker's environment and nothing else: that environment is the only channel, and this one
// variable, set in one place before the first job process is forked, is all it carries for us.

export const JOB_HANDOVER_VARIABLE = 'VOICE_AGENT_JOB';

const JobHandover = z.object({
  /** The database the worker opened: the embedded cluster's URL exists only once the worker has started it. */
  databaseUrl: z.string().min(1),
  dataDir: z.string().min(1),
  vendors: z.object({
    apiKeys: z.record(z.string(), z.string()),
    baseUrls: z.record(z.string(), z.string()),
    privateHosts: z.array(z.object({ host: z.string(), port: z.number().int().nullable() })).default([]),
  }),
  agent: z.object({ pocketsphinxBin: z.string().min(1) }),
  /** SECRETS_KEY, when set: opens tools' stored credentials; unset, the key file in `dataDir`. */
  secretsKey: z.string().optional(),
  allowPrivateToolTargets: z.boolean().default(false),
  /** The LiveKit server's API: a job transfers its SIP caller through it (agent/io/livekit-line.ts). */
  livekit: z.object({ url: z.string().min(1), apiKey: z.string().min(1), apiSecret: z.string().min(1) }).optional(),
  /** OTLP trace export, as the worker's own (lib/tracing): a job's call spans go where the worker's go. */
  tracing: z.object({ endpoint: z.string().min(1), serviceName: z.string().min(1).optional(), includeContent: z.boolean() }).optional(),
});
export type JobHandover = z.infer<typeof JobHandover>;

/** Gives `handover` to every job process the framework forks from now on. */
export function handOverToJobProcesses(handover: JobHandover): void {
  process.env[JOB_HANDOVER_VARIABLE] = JSON.stringify(JobHandover.parse(handover));
}

/** In a job process: what its worker handed over. */
export function handedOverByWorker(env: NodeJS.ProcessEnv = process.env): JobHandover {
  const text = env[JOB_HANDOVER_VARIABLE];
  if (!text) throw new Error(`${JOB_HANDOVER_VARIABLE} is not set: job processes are started by the agent worker (agent/worker.ts)`);
  return JobHandover.parse(JSON.parse(text));
}
