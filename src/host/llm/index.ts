export type { AssembledToolCall, ChatMessage, FunctionTool, Llm, LlmEvent, LlmRequest, WireToolCall } from './types.js';
export { ToolCallAssembler, type ToolCallFragment } from './tool-call-assembler.js';
export { SentenceSplitter, splitSentences, type SentenceSplitterOptions } from './sentence-splitter.js';
export { OpenAiLlm, LLAMA_SERVER_NO_THINKING, type OpenAiLlmOptions } from './openai-llm.js';
export { LLM_CANCELLED, LLM_HTTP_ERROR, LLM_STREAM_BROKEN, LLM_UNREACHABLE, displayUrl } from './llm-errors.js';
export { LlmServerWatch, LLM_PROBE_DELAYS_MS, LLM_PROBE_TIMEOUT_MS, type LlmServerChange, type LlmServerProbe, type LlmServerWatchOptions, type MissingLlmServer } from './server-watch.js';
