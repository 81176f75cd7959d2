document.getElementById("temp").textContent = "14";
