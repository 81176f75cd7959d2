document.title = "Status";
