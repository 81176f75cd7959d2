// A tool found by the directory contract: the file stem is the tool name.
export const description = "Find the runbook for a service and an alert name.";

export const inputSchema = {
  type: "object",
  additionalProperties: false,
  required: ["service"],
  properties: { service: { type: "string" }, alert: { type: "string" } },
} as const;

export async function run(input: { service: string; alert?: string }): Promise<string> {
  return `runbooks://${input.service}/${input.alert ?? "index"}`;
}
