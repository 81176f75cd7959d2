// A tool with a real npm dependency: the image build installs ms (resolved by npm) where node finds it.
import ms from "ms";

export const description = "How long ago an incident was opened, in words (for example \"3 hours\").";

export const inputSchema = {
  type: "object",
  additionalProperties: false,
  required: ["openedAt"],
  properties: { openedAt: { type: "string", format: "date-time" } },
};

export async function run(input, now = Date.now()) {
  return ms(now - Date.parse(input.openedAt), { long: true });
}
