(function () {
  "use strict";
  var box = document.getElementById("item-filter");
  var table = document.getElementById("items");
  if (!box || !table) { return; }
  var rows = Array.prototype.slice.call(table.querySelectorAll(":scope > tbody > tr[data-item]"));
  var count = document.getElementById("item-count");
  var texts = null;
  function apply() {
    if (texts === null) {
      texts = rows.map(function (row) {
        return (row.getAttribute("data-item") + " " + row.textContent).toLowerCase();
      });
    }
    var query = box.value.trim().toLowerCase();
    var shown = 0;
    for (var i = 0; i < rows.length; i += 1) {
      var hit = query === "" || texts[i].indexOf(query) !== -1;
      rows[i].hidden = !hit;
      if (hit) { shown += 1; }
    }
    if (count) { count.textContent = shown + " of " + rows.length + " items shown"; }
  }
  box.addEventListener("input", apply);
  if (box.value) { apply(); }
})();
