// The assistant builder's sections: every setting of an assistant, grouped by what a product team is deciding when
// it changes it, with a person's label, its unit and a line of help. The API's schema still says what each setting
// accepts (its type, bounds and default, api/dashboard/schema-form.ts reads them); this says how a person sees it. A
// setting the API gains and this table does not name still appears, under Advanced, so the page never hides one.

/** How a setting is edited, where its type alone would not say. */
export type Control =
  /** A checkbox drawn as a switch, for a yes/no setting. */
  | 'switch'
  /** A text area of one item a line, for a list of words or phrases. */
  | 'lines'
  /** Checkboxes naming the organisation's tools, documents or playbooks. */
  | 'tools'
  | 'documents'
  | 'playbooks'
  /** The voice list of the chosen voice provider, with a preview. */
  | 'voice'
  /** A long text: the prompt, messages. */
  | 'text'
  /** A row a fallback model: provider, model, server address and key, tried in order. */
  | 'fallbacks'
  /** The organisation's phone numbers this assistant answers, ticked by number (not a setting: the numbers' own). */
  | 'numbers'
  /** A write-only secret: typed, never shown; left empty, the saved one stays. */
  | 'secret'
  /** A row a language: its code, voice and first message. */
  | 'languages';

/** The builder's field for the numbers the assistant answers: posted beside its settings, never part of them. */
export const PHONE_NUMBERS_FIELD = 'phone_numbers';

export interface Field {
  /** The setting's path, dotted as the API's errors name it. */
  key: string;
  label: string;
  help?: string;
  /** Shown after the input: seconds, tokens, words. */
  unit?: string;
  control?: Control;
  /** Labels for an enum's values, in the order offered. */
  choices?: Record<string, string>;
  /** A nullable enum's label for null ("None" unless told). */
  noneLabel?: string;
}

export interface Section {
  id: string;
  title: string;
  intro: string;
  fields: Field[];
}

export const LLM_CHOICES = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google Gemini',
  groq: 'Groq',
  mistral: 'Mistral',
  custom: 'Your own (OpenAI-compatible)',
};
const STT_CHOICES = { deepgram: 'Deepgram', soniox: 'Soniox', assemblyai: 'AssemblyAI', local: 'Built-in (offline, no key)' };
export const TTS_CHOICES = { elevenlabs: 'ElevenLabs', cartesia: 'Cartesia', deepgram: 'Deepgram Aura', local: 'Built-in (offline, no key)' };

export const SECTIONS: Section[] = [
  {
    id: 'essentials',
    title: 'Essentials',
    intro: 'What callers hear first and who answers them: most teams change only these.',
    fields: [
      { key: 'name', label: 'Name', help: 'For your team and your call lists; callers never hear it.' },
      {
        key: 'llm_settings.welcome_message',
        label: 'First message',
        control: 'text',
        help: 'Said as soon as the call connects. Leave it empty and the assistant waits for the caller to speak first.',
      },
      {
        key: 'llm_settings.system_prompt',
        label: 'Instructions',
        control: 'text',
        help: 'Who the assistant is, what it must do and how it speaks. {{var.name}} and {{contact.first_name}} are filled in for each call.',
      },
      { key: 'llm_provider', label: 'Model provider', choices: LLM_CHOICES },
      { key: 'llm_provider_config.model', label: 'Model', help: 'The vendor’s model name, for example gpt-4.1-mini.' },
      { key: 'tts_settings.provider', label: 'Voice provider', choices: TTS_CHOICES },
      { key: 'tts_settings.voice_id', label: 'Voice', control: 'voice' },
      { key: 'is_active', label: 'Takes calls', control: 'switch', help: 'Off: calls to this assistant are refused.' },
      { key: PHONE_NUMBERS_FIELD, label: 'Answers calls to', control: 'numbers', help: 'The numbers whose calls this assistant answers.' },
    ],
  },
  {
    id: 'model',
    title: 'Model',
    intro: 'How the language model writes its replies, and what takes over when it fails.',
    fields: [
      { key: 'llm_settings.temperature', label: 'Creativity (temperature)', help: '0 answers the same way every time; higher varies the wording.' },
      { key: 'llm_settings.max_tokens', label: 'Longest reply', unit: 'tokens' },
      { key: 'llm_settings.top_p', label: 'Top P', help: 'Leave at 1 unless the vendor advises otherwise.' },
      { key: 'llm_settings.frequency_penalty', label: 'Frequency penalty' },
      { key: 'llm_settings.presence_penalty', label: 'Presence penalty' },
      { key: 'llm_settings.stop_sequences', label: 'Stop sequences', control: 'lines', help: 'One a line: the reply ends where one appears.' },
      { key: 'llm_provider_config.base_url', label: 'Server address', help: 'Only for your own OpenAI-compatible server, or a vendor’s regional endpoint.' },
      {
        key: 'llm_provider_config.custom_config',
        label: 'Vendor options',
        help: 'JSON passed to the vendor. An api_key here is this assistant’s own key, kept sealed.',
      },
      {
        key: 'llm_fallback_providers.enabled',
        label: 'Use fallback models',
        control: 'switch',
        help: 'When the model fails or times out, the next one answers the turn.',
      },
      {
        key: 'llm_fallback_providers.fallbacks',
        label: 'Fallback models',
        control: 'fallbacks',
        help: 'Tried in order, top first. A provider of “Not used” removes the row.',
      },
    ],
  },
  {
    id: 'voice',
    title: 'Voice',
    intro: 'How the assistant sounds.',
    fields: [
      { key: 'tts_settings.model_id', label: 'Voice model', help: 'The vendor’s synthesis model; empty for its default.' },
      {
        key: 'tts_settings.provider_config',
        label: 'Voice options',
        help: 'JSON passed to the vendor (speed, stability). The built-in voice takes words_per_minute and pitch.',
      },
    ],
  },
  {
    id: 'speech-to-speech',
    title: 'Speech-to-speech',
    intro: 'One model that hears the caller and speaks, in place of the transcriber, the model and the voice during calls.',
    fields: [
      {
        key: 'realtime_settings.enabled',
        label: 'Use a speech-to-speech model',
        control: 'switch',
        help: 'Test runs and the call summary still use the model above.',
      },
      { key: 'realtime_settings.provider', label: 'Provider', choices: { openai: 'OpenAI Realtime', google: 'Google Gemini Live' } },
      { key: 'realtime_settings.model', label: 'Model', help: 'Empty: gpt-realtime (OpenAI), gemini-2.5-flash-native-audio-preview-12-2025 (Google).' },
      {
        key: 'realtime_settings.voice',
        label: 'Voice',
        help: 'One of the model’s own voices (OpenAI: marin, cedar, alloy, ...; Google: Puck, Kore, Charon, ...); empty: marin or Puck.',
      },
      {
        key: 'realtime_settings.turn_detection',
        label: 'End of the caller’s turn',
        choices: { server_vad: 'After a silence (the shortest wait under Transcriber)', semantic_vad: 'When the model judges they are done (OpenAI only)' },
      },
      { key: 'realtime_settings.base_url', label: 'Server address', help: 'Empty: the vendor’s own.' },
    ],
  },
  {
    id: 'transcriber',
    title: 'Transcriber',
    intro: 'How the caller’s speech becomes text.',
    fields: [
      { key: 'stt_settings.provider', label: 'Provider', choices: STT_CHOICES },
      { key: 'stt_settings.model', label: 'Model', help: 'The vendor’s model name, for example nova-3.' },
      { key: 'stt_settings.language', label: 'Language', help: 'A language code: en, en-GB, fr, es.' },
      {
        key: 'languages',
        label: 'Other languages it speaks',
        control: 'languages',
        help: 'The reply and the voice follow a caller who speaks one of them. A voice of the same provider; empty: the main voice.',
      },
      {
        key: 'stt_settings.language_hints',
        label: 'Language hints',
        control: 'lines',
        help: 'One code a line. Empty: the languages above. For a caller’s language the assistant does not reply in.',
      },
      {
        key: 'stt_settings.keyterms',
        label: 'Words to listen for',
        control: 'lines',
        help: 'One a line: product names, places, jargon the transcriber should expect.',
      },
      { key: 'stt_settings.punctuate', label: 'Punctuation', control: 'switch' },
      { key: 'stt_settings.smart_format', label: 'Format numbers and dates', control: 'switch' },
      {
        key: 'stt_settings.endpoint_latency_adjustment_level',
        label: 'End-of-speech latency level',
        help: 'Vendor-specific: 0 to 3, empty for the vendor’s default.',
      },
      { key: 'stt_settings.endpoint_sensitivity', label: 'End-of-speech sensitivity', help: 'Vendor-specific: -1 to 1, empty for the vendor’s default.' },
    ],
  },
  {
    id: 'knowledge',
    title: 'Tools and knowledge',
    intro: 'What the assistant can do during a call and what it can look up.',
    fields: [
      { key: 'assigned_tools', label: 'Tools', control: 'tools' },
      { key: 'playbook_ids', label: 'Playbooks', control: 'playbooks' },
      { key: 'assigned_documents', label: 'Documents', control: 'documents' },
      { key: 'rag_settings.enabled', label: 'Look up the documents during calls', control: 'switch' },
      { key: 'rag_settings.search_limit', label: 'Passages per answer', unit: 'passages' },
      { key: 'rag_settings.similarity_threshold', label: 'How close a passage must be', help: '0 to 1: higher takes only close matches.' },
      { key: 'rag_settings.auto_process', label: 'Process documents when added', control: 'switch' },
      { key: 'rag_settings.chunking_strategy', label: 'How documents are split' },
      { key: 'rag_settings.chunk_size', label: 'Passage size', unit: 'characters' },
      { key: 'rag_settings.chunk_overlap', label: 'Passage overlap', unit: 'characters' },
      { key: 'rag_settings.embedding_model', label: 'Embedding model' },
      { key: 'rag_settings.include_metadata', label: 'Give the model each passage’s source', control: 'switch' },
      { key: 'rag_settings.context_budget', label: 'Knowledge budget', unit: 'tokens' },
      { key: 'rag_settings.context_window_tokens', label: 'Context window', unit: 'tokens' },
      { key: 'rag_settings.max_prompt_doc_tokens', label: 'Document text in the prompt', unit: 'tokens' },
      { key: 'rag_settings.history_strategy', label: 'Long conversations' },
      { key: 'rag_settings.max_history_turns', label: 'Turns kept', unit: 'turns' },
    ],
  },
  {
    id: 'conversation',
    title: 'Conversation',
    intro: 'When the assistant decides the caller has finished, lets itself be interrupted, and nudges a silent caller.',
    fields: [
      {
        key: 'stt_settings.turn_detection.mode',
        label: 'End of turn decided by',
        choices: { turn_detector: 'Voice and words (recommended)', text_turn_detector: 'Words only' },
      },
      { key: 'stt_settings.turn_detection.min_endpointing_delay', label: 'Shortest wait after the caller stops', unit: 'seconds' },
      { key: 'stt_settings.turn_detection.max_endpointing_delay', label: 'Longest wait for an unfinished sentence', unit: 'seconds' },
      { key: 'interruption_settings.allow_interruptions', label: 'Caller can interrupt', control: 'switch' },
      { key: 'interruption_settings.allow_welcome_interruption', label: 'Caller can interrupt the first message', control: 'switch' },
      { key: 'interruption_settings.min_interruption_duration', label: 'Speech that interrupts', unit: 'seconds' },
      { key: 'interruption_settings.min_interruption_words', label: 'Words that interrupt', unit: 'words' },
      { key: 'interruption_settings.false_interruption_timeout', label: 'Resume after a noise within', unit: 'seconds' },
      { key: 'interruption_settings.resume_false_interruption', label: 'Resume the reply after a noise', control: 'switch' },
      { key: 'idle_message', label: 'Message to a silent caller', control: 'text' },
      { key: 'idle_timeout', label: 'Silence before it', unit: 'seconds', help: 'Empty: never.' },
      { key: 'max_idle_messages', label: 'Times before hanging up', unit: 'times', help: 'Empty: never hang up for silence.' },
    ],
  },
  {
    id: 'call',
    title: 'Recording and privacy',
    intro: 'What is recorded and kept of each call, and whether callers are asked first.',
    fields: [
      {
        key: 'privacy_mode',
        label: 'What calls keep',
        noneLabel: 'As the organisation',
        choices: {
          full: 'Everything said',
          redacted: 'Redacted: personal details masked, beeped in recordings',
          metadata_only: 'Metadata only: no words, no recording',
        },
        help: 'The stricter of this and the organisation’s choice applies: an assistant can keep less, never more.',
      },
      { key: 'recording_settings.recording_enabled', label: 'Record calls', control: 'switch' },
      { key: 'recording_settings.recording_format', label: 'Format', choices: { mp3: 'MP3 (smaller)', wav: 'WAV (lossless)' } },
      { key: 'recording_settings.record_user_audio', label: 'Caller’s track', control: 'switch' },
      { key: 'recording_settings.record_assistant_audio', label: 'Assistant’s track', control: 'switch' },
      { key: 'recording_settings.record_mixed_audio', label: 'Both together', control: 'switch' },
      { key: 'recording_settings.consent_required', label: 'Ask for consent first', control: 'switch' },
      { key: 'recording_settings.consent_prompt', label: 'Consent question', control: 'text' },
    ],
  },
  {
    id: 'lookup',
    title: 'Caller lookup',
    intro: 'Ask your own server who is calling as each call starts: its answer can set {{var.*}} values, the greeting and the prompt for that call.',
    fields: [
      { key: 'call_start_lookup.url', label: 'Lookup URL', help: 'Empty: no lookup. Receives a signed POST (call.starting) as each call starts.' },
      {
        key: 'call_start_lookup.secret',
        label: 'Signing secret',
        control: 'secret',
        help: 'whsec_ and the output of openssl rand -base64 32. Your server checks each request with it, as it checks a webhook.',
      },
      { key: 'call_start_lookup.timeout_ms', label: 'Wait at most', unit: 'ms', help: 'Past this the call goes on without the answer.' },
    ],
  },
  {
    id: 'advanced',
    title: 'Advanced',
    intro: 'Rarely changed.',
    fields: [
      { key: 'description', label: 'Description', control: 'text', help: 'For your team; the assistant never sees it.' },
      { key: 'custom_settings', label: 'Custom settings', help: 'JSON kept with the assistant for your own use.' },
    ],
  },
];

/** The section and field a setting's dotted path names (a list item's path names its list), if the table has it. */
export function settingNamed(path: string): { section: Section; field: Field } | undefined {
  for (const section of SECTIONS) {
    const field = section.fields.find((f) => path === f.key || path.startsWith(`${f.key}.`));
    if (field) return { section, field };
  }
  return undefined;
}
