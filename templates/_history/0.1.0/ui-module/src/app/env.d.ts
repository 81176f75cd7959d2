// Stylesheets imported for their side effect: `neuralis-build ui` bundles them into dist/app/host.css.
declare module "*.css";
