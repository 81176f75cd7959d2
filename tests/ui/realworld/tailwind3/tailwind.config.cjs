/** @type {import('tailwindcss').Config} */
module.exports = {
  content: ["./src/**/*.{ts,tsx}"],
  theme: {
    extend: {
      colors: { brand: "rgb(90, 20, 60)" },
    },
  },
  plugins: [],
};
