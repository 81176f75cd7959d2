declare module "*.less";
