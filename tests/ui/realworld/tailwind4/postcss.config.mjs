// Tailwind v4's documented PostCSS set-up.
export default {
  plugins: {
    "@tailwindcss/postcss": {},
  },
};
