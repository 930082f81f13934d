export { ToolRouter, type RouterOptions, type RoutedResult, type ToolCallRequest, type TurnContext } from './router.js';
export type { RoutedTool } from './catalog.js';
export { TurnBudget } from './budget.js';
export {
  askWithTimeout,
  confirmationQuestion,
  noConfirmationChannel,
  type ConfirmationAnswer,
  type ConfirmationChannel,
  type ConfirmationRequest,
} from './confirmation.js';
export { ArgumentValidator, type ValidationProblem } from './validation.js';
export { resolveRisk, riskFromAnnotations, higherRisk } from './risk.js';
export { policyDecision } from './policy.js';
export { handleOutput, resultToText } from './output.js';
export { refusal } from './refusal.js';
export { guiControlReason, type ComputerControlProvider } from './computer-control.js';
