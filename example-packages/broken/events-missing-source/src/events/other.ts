export const subject = "other";
