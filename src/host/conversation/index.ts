export { Conversation, type ConversationOptions, type TurnOptions, type TurnOutcome } from './conversation.js';
export { pickAnnouncement } from './announcement.js';
export { ActivityTracker } from './activity.js';
export { hubMemoryRecall, memoryContext, type MemoryRecall, type RecalledMemory } from './memory-recall.js';
export { recallQuery } from './recall-ahead.js';
export { questionKey, Speculation, type SpeculativeReply } from './speculation.js';
