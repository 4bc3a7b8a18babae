import { llm, type voice } from '@livekit/agents';
import { type CallPlaybook, collectSchema } from '../../modules/playbooks/index.js';
import type { CallTool } from '../../modules/tools/index.js';
import type { TurnTaking } from '../turn/turn-taking.js';
import { CallAgent } from './call-agent.js';
import type { CollectedValues } from './collected-values.js';
import type { TurnPrompt } from './turn-prompt.js';
import type { CallLanguages } from './languages.js';

// The assistant's agent, built the same way for every session: a call (audio, real tools) and a text test run (mocked
// tools). Playbooks are procedures, not a graph (docs/playbooks.md): an inline one is a section of the prompt; a
// handoff one is a tool of the main agent that hands the conversation to an agent of its own, whose prompt is the
// assistant's plus the playbook's and whose tools are the playbook's, a tool that saves the values it collects, and
// a way back. Every agent is a CallAgent, so the call's turn-taking holds after a handoff, and each is made when it is
// entered, with the conversation so far.

export interface AssistantAgentSpec {
  /** The rendered system prompt. */
  instructions: string;
  /** The assistant's enabled assigned tools. */
  tools: CallTool[];
  /** The attached enabled playbooks, in order. */
  playbooks: CallPlaybook[];
  /** How tools run: for real in calls, mocked in test runs. */
  toolsFor(tools: CallTool[]): llm.ToolContextLike;
  /** The call's turn-taking; absent in a text run. */
  turns?: TurnTaking;
  /** Knowledge passages and prompt budgets for each reply. */
  prompt?: TurnPrompt | undefined;
  /** The languages the call may switch between (languages.ts). */
  languages?: CallLanguages | undefined;
  /** Where collected values accumulate. */
  collected: CollectedValues;
  /** A test run of one playbook starts inside it: the index of that playbook in `playbooks`. */
  startInPlaybook?: number;
}

/** The name of the tool that leaves a playbook, unless one of its own tools has it. */
export const FINISH_TOOL = 'finish_playbook';
/** The name of the tool that saves a handoff playbook's values, unless one of its own tools has it. */
export const SAVE_TOOL = 'save_values';
const MAX_TOOL_NAME = 64;
/** A tool description the model's APIs take whole. */
const MAX_DESCRIPTION = 1_000;

export function buildAssistantAgent(spec: AssistantAgentSpec): voice.Agent {
  const agents = new AssistantAgents(spec);
  return spec.startInPlaybook === undefined ? agents.main(undefined, false) : agents.playbook(spec.startInPlaybook, undefined, false);
}

/** An agent entered by a handoff: it speaks first, from the conversation so far and its own instructions. */
class EnteredAgent extends CallAgent {
  override async onEnter(): Promise<void> {
    this.session.generateReply();
  }
}

type ToolEntry = llm.ToolContextEntry;

class AssistantAgents {
  readonly #spec: AssistantAgentSpec;
  readonly #mainTools: readonly ToolEntry[];
  readonly #mainInstructions: string;
  /** The tools of the main agent that this file adds: a handoff per handoff playbook, a save per inline one that collects. */
  readonly #playbookTools: ToolEntry[] = [];
  readonly #ofPlaybook = new Map<number, { tools: readonly ToolEntry[]; instructions: string }>();

  constructor(spec: AssistantAgentSpec) {
    this.#spec = spec;
    for (const playbook of spec.playbooks) spec.collected.declare(playbook.name, playbook.collect);
    this.#mainTools = llm.toToolContext(spec.toolsFor(spec.tools)).tools;
    const taken = new Set(functionNames(this.#mainTools));
    const sections = [spec.instructions];
    spec.playbooks.forEach((playbook, index) => {
      if (playbook.mode === 'inline') {
        const save = playbook.collect.length > 0 ? uniqueName(`save_${slug(playbook)}_values`, taken) : undefined;
        sections.push(playbookSection(playbook, save));
        if (save) this.#playbookTools.push(this.#saveTool(playbook, save));
      } else {
        this.#playbookTools.push(this.#enterTool(index, uniqueName(`use_playbook_${slug(playbook)}`, taken)));
      }
    });
    this.#mainInstructions = sections.join('\n\n');
  }

  main(chatCtx: llm.ChatContext | undefined, speakFirst: boolean): CallAgent {
    const Agent = speakFirst ? EnteredAgent : CallAgent;
    return new Agent({
      id: 'assistant',
      instructions: this.#mainInstructions,
      tools: [...this.#mainTools, ...this.#playbookTools],
      turns: this.#spec.turns,
      prompt: this.#spec.prompt,
      languages: this.#spec.languages,
      ...(chatCtx ? { chatCtx } : {}),
    });
  }

  playbook(index: number, chatCtx: llm.ChatContext | undefined, speakFirst: boolean): CallAgent {
    const playbook = this.#spec.playbooks[index];
    if (!playbook) throw new RangeError(`no playbook at ${index}`);
    const { tools, instructions } = this.#playbookParts(index, playbook);
    // Entered: what it still lacks when the call ends is reported, even if the caller gave nothing.
    this.#spec.collected.entered(playbook.name);
    const Agent = speakFirst ? EnteredAgent : CallAgent;
    return new Agent({
      id: `playbook_${slug(playbook)}`,
      instructions,
      tools,
      turns: this.#spec.turns,
      prompt: this.#spec.prompt,
      languages: this.#spec.languages,
      ...(chatCtx ? { chatCtx } : {}),
    });
  }

  /** Made once per playbook, on its first entry. */
  #playbookParts(index: number, playbook: CallPlaybook) {
    let parts = this.#ofPlaybook.get(index);
    if (!parts) {
      const own = llm.toToolContext(this.#spec.toolsFor(playbook.tools)).tools;
      const taken = new Set(functionNames(own));
      const save = playbook.collect.length > 0 ? uniqueName(SAVE_TOOL, taken) : undefined;
      const finish = uniqueName(FINISH_TOOL, taken);
      const added = [...(save ? [this.#saveTool(playbook, save)] : []), this.#finishTool(playbook, finish)];
      parts = { tools: [...own, ...added], instructions: playbookInstructions(this.#spec.instructions, playbook, save, finish) };
      this.#ofPlaybook.set(index, parts);
    }
    return parts;
  }

  #enterTool(index: number, name: string): ToolEntry {
    const playbook = this.#spec.playbooks[index]!;
    const when = playbook.description || playbook.goal || playbook.name;
    return llm.tool({
      name,
      description: clip(`Start the playbook "${playbook.name}", which takes you through it. Use it when: ${when}`),
      execute: async (_args, { ctx }) => {
        return llm.handoff({ agent: this.playbook(index, conversationOf(ctx.session), true) });
      },
    });
  }

  #finishTool(playbook: CallPlaybook, name: string): ToolEntry {
    return llm.tool({
      name,
      description: clip(
        'Leave this playbook and return to the main conversation: with reason "done" once its goal is reached, or at ' +
          'once with reason "changed_subject" when the caller wants something it does not cover.',
      ),
      parameters: {
        type: 'object',
        properties: { reason: { type: 'string', enum: ['done', 'changed_subject'] } },
        required: ['reason'],
        additionalProperties: false,
      },
      execute: async (args, { ctx }) => {
        const missing = this.#spec.collected.missing(playbook.name);
        // Done without a required value would leave the task half done and the record without it: the model asks.
        if ((args as { reason?: unknown }).reason !== 'changed_subject' && missing.length > 0) {
          throw new llm.ToolError(
            `Not done yet: still missing ${missing.join(', ')}. Ask the caller for them, or call ${name} with reason "changed_subject" if they want something else.`,
          );
        }
        return llm.handoff({ agent: this.main(conversationOf(ctx.session), true) });
      },
    });
  }

  #saveTool(playbook: CallPlaybook, name: string): ToolEntry {
    const required = playbook.collect.filter((f) => f.required).map((f) => f.name);
    return llm.tool({
      name,
      description: clip(
        `Save the values of "${playbook.name}" as soon as the caller gives them, one or several at a time` +
          (required.length ? `. Required: ${required.join(', ')}` : ''),
      ),
      parameters: collectSchema(playbook.collect) as Parameters<typeof llm.tool>[0]['parameters'] & object,
      execute: async (args) => {
        const result = this.#spec.collected.save(playbook.name, (args ?? {}) as Record<string, unknown>);
        const missing = this.#spec.collected.missing(playbook.name);
        if (result.refused.length > 0) {
          const saved = result.saved.length ? ` Saved: ${result.saved.join(', ')}.` : '';
          throw new llm.ToolError(`Not saved: ${result.refused.map((r) => `${r.name} ${r.reason}`).join('; ')}.${saved} Ask the caller again.`);
        }
        return { saved: result.saved, still_missing: missing };
      },
    });
  }
}

/** The conversation so far, without the instructions and configuration of the agent that had it: the next brings its own. */
function conversationOf(session: voice.AgentSession): llm.ChatContext {
  return session.currentAgent.chatCtx.copy({ excludeInstructions: true, excludeConfigUpdate: true });
}

function functionNames(tools: readonly ToolEntry[]): string[] {
  return Object.keys(new llm.ToolContext(tools).functionTools);
}

/** A function name the model APIs take, from the playbook's name: `Book an appointment` is `book_an_appointment`. */
export function slug(playbook: Pick<CallPlaybook, 'id' | 'name'>): string {
  const words = playbook.name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return (words || `playbook_${playbook.id}`).slice(0, 40);
}

/** `base`, or `base_2`, `base_3`…, at most 64 characters, not in `taken` (which it joins). */
export function uniqueName(base: string, taken: Set<string>): string {
  let name = base.slice(0, MAX_TOOL_NAME);
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, MAX_TOOL_NAME - `_${n}`.length)}_${n}`;
  taken.add(name);
  return name;
}

function clip(text: string): string {
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
}

/** The playbook as a section of a prompt: when to use it, the goal, the steps, the examples, the notes. */
export function playbookSection(playbook: CallPlaybook, saveTool?: string): string {
  const lines = [`## Playbook: ${playbook.name}`];
  if (playbook.description) lines.push(`When to use it: ${playbook.description}`);
  if (playbook.goal) lines.push(`Goal: ${playbook.goal}`);
  if (playbook.instructions.length > 0) lines.push('Steps:', ...playbook.instructions.map((step, i) => `${i + 1}. ${step}`));
  playbook.examples.forEach((exchange, i) => {
    lines.push(`Example ${i + 1}:`, ...exchange.map((m) => `${m.role === 'user' ? 'Caller' : 'You'}: ${m.content}`));
  });
  if (playbook.notes.trim()) lines.push('Notes:', playbook.notes.trim());
  if (saveTool) {
    const values = playbook.collect.map((f) => `${f.name} (${f.type}${f.required ? ', required' : ''})${f.description ? `: ${f.description}` : ''}`);
    lines.push(
      `Values to collect, each saved with ${saveTool} as soon as the caller gives it (a refused value comes back with why: ask again):`,
      ...values.map((v) => `- ${v}`),
    );
  }
  return lines.join('\n');
}

/** The prompt of a handoff playbook's agent: the assistant's, then the playbook, then how to leave it. */
export function playbookInstructions(assistantPrompt: string, playbook: CallPlaybook, saveTool: string | undefined, finishTool: string): string {
  return [
    assistantPrompt,
    'You are now following the playbook below for this part of the conversation; the conversation so far is above it.',
    playbookSection(playbook, saveTool),
    `When its goal is reached, call ${finishTool} with reason "done". If the caller wants something this playbook does ` +
      `not cover, call ${finishTool} with reason "changed_subject" at once, without answering: the main conversation will.`,
  ].join('\n\n');
}
