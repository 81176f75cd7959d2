// Runs when a session starts: remind the agent of open sev1 incidents.
export default async function onSessionStart(): Promise<string | undefined> {
  return undefined;
}
