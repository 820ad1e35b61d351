// The step-up that the API asks for before a sensitive action (API.md section 11.3): `api()` hands a 403
// `step_up_required` to the handler the signed-in frame registers (a dialog asking for a code or a passkey),
// then retries the action once. Every page's actions get the step-up in place without knowing about it.
type StepUpHandler = () => Promise<boolean>;
let handler: StepUpHandler | undefined;

/** The signed-in frame's dialog: resolves true once a factor opened the window, false when dismissed. */
export function onStepUp(h: StepUpHandler): () => void {
  handler = h;
  return () => {
    if (handler === h) handler = undefined;
  };
}

export function askStepUp(): Promise<boolean> {
  return handler ? handler() : Promise.resolve(false);
}
