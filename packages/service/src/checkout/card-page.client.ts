/**
 * The hosted card page's enhancement script, sent inline under the response's CSP nonce. The
 * page works without it; with it, the card number is grouped as typed (Amex 4-6-5) with its
 * brand beside it, "/" goes into the expiry, a field is checked when the customer leaves it,
 * and a submit with mistakes focuses the error summary, whose links move focus to the fields.
 *
 * Rules and texts come from the page's JSON data block (card-input.ts's clientRules and the
 * server's translated messages), so the script says what the server would say. Plain ES2017,
 * no dependencies; kept small (the whole page stays far under 20 KB gzip).
 */
export const CARD_PAGE_JS = `(function () {
"use strict";
var form = document.getElementById("card-form");
var dataEl = document.getElementById("card-page-data");
if (!form || !dataEl) return;
var data = JSON.parse(dataEl.textContent);
var msg = data.messages, rules = data.rules;
var brands = rules.brands.map(function (b) {
  return { brand: b.brand, prefix: new RegExp(b.prefix), groups: b.groups, cvc: b.cvc };
});
var expirySeparated = new RegExp(rules.expirySeparated), expiryDigits = new RegExp(rules.expiryDigits);
var NAMES = ["number", "expiry", "cvc", "holder"];
var fields = {};
NAMES.forEach(function (name) { fields[name] = document.getElementById(name); });
var brandEl = document.getElementById("number-brand");
var shownBrand = null, submitting = false, pressing = false;

function digitsOf(value) { return value.replace(/[\\s-]/g, ""); }
function ruleOf(digits) {
  for (var i = 0; i < brands.length; i++) if (brands[i].prefix.test(digits)) return brands[i];
  return null;
}
function luhn(digits) {
  var sum = 0;
  for (var i = 0; i < digits.length; i++) {
    var d = +digits[digits.length - 1 - i];
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return sum % 10 === 0;
}

var checks = {
  number: function (value) {
    var d = digitsOf(value);
    if (!d) return "err_number_required";
    if (!/^[0-9]+$/.test(d)) return "err_number_digits";
    if (d.length < rules.minDigits) return "err_number_short";
    if (d.length > rules.maxDigits) return "err_number_long";
    if (!luhn(d)) return "err_number_luhn";
  },
  expiry: function (value) {
    if (!value.trim()) return "err_expiry_required";
    var m = expirySeparated.exec(value) || expiryDigits.exec(value);
    if (!m) return "err_expiry_format";
    var month = +m[1], year = m[2].length === 2 ? 2000 + +m[2] : +m[2];
    if (month < 1 || month > 12) return "err_expiry_month";
    if (year < 2000 || year > 2099) return "err_expiry_format";
    if (Date.UTC(year, month, 1) <= Date.now()) return "err_expiry_past";
  },
  cvc: function (value) {
    var rule = ruleOf(digitsOf(fields.number.value)), length = rule ? rule.cvc : 3;
    if (!new RegExp("^[0-9]{" + length + "}$").test(value.trim())) return length === 4 ? "err_cvc_amex" : "err_cvc";
  },
  holder: function (value) {
    if (value.trim().length > rules.maxHolder) return "err_holder";
  }
};

/** Shows or clears a field's message, linked to the field with aria-describedby. */
function show(name, key) {
  var input = fields[name], errorId = name + "-error", error = document.getElementById(errorId);
  var ids = (input.getAttribute("aria-describedby") || "").split(" ").filter(function (id) {
    return id && id !== errorId;
  });
  if (key) {
    error.textContent = msg[key];
    input.setAttribute("aria-invalid", "true");
    ids.push(errorId);
  } else {
    error.textContent = "";
    input.removeAttribute("aria-invalid");
  }
  if (ids.length) input.setAttribute("aria-describedby", ids.join(" "));
  else input.removeAttribute("aria-describedby");
}
function check(name) {
  var key = checks[name](fields[name].value);
  show(name, key);
  return key;
}

function group(digits, groups) {
  var parts = [], at = 0;
  for (var g = 0; g < groups.length && at < digits.length; g++) {
    parts.push(digits.slice(at, at + groups[g]));
    at += groups[g];
  }
  if (at < digits.length) parts.push(digits.slice(at));
  return parts.join(" ");
}
/** Rewrites a field's value, keeping the caret after the same number of digits. */
function reformat(input, next) {
  var value = input.value;
  if (next === value) return;
  var focused = document.activeElement === input;
  var caret = focused && input.selectionStart !== null ? input.selectionStart : value.length;
  var atEnd = caret === value.length, before = value.slice(0, caret).replace(/[^0-9]/g, "").length;
  input.value = next;
  if (!focused) return;
  var pos = next.length;
  if (!atEnd) {
    pos = 0;
    for (var seen = 0; pos < next.length && seen < before; pos++) if (/[0-9]/.test(next[pos])) seen++;
  }
  input.setSelectionRange(pos, pos);
}
function showBrand() {
  var rule = ruleOf(digitsOf(fields.number.value)), brand = rule ? rule.brand : "card";
  if (brand !== shownBrand && brandEl) brandEl.innerHTML = data.marks[brand];
  shownBrand = brand;
  return rule;
}

var formatters = {
  number: function (value) {
    var digits = value.replace(/[^0-9]/g, "").slice(0, rules.maxDigits), rule = ruleOf(digits);
    return group(digits, rule ? rule.groups : rules.groups);
  },
  expiry: function (value, deleting) {
    if (/^[0-9][^0-9]/.test(value)) value = "0" + value;
    var digits = value.replace(/[^0-9]/g, "").slice(0, 6);
    if (!deleting && digits.length === 1 && digits > "1") digits = "0" + digits;
    if (digits.length > 2) return digits.slice(0, 2) + "/" + digits.slice(2);
    return digits.length === 2 && !deleting ? digits + "/" : digits;
  },
  cvc: function (value) { return value.replace(/[^0-9]/g, "").slice(0, 4); }
};

NAMES.forEach(function (name) {
  var input = fields[name];
  if (!input) return;
  input.addEventListener("input", function (e) {
    var format = formatters[name];
    if (format) reformat(input, format(input.value, /^delete/.test(e.inputType || "")));
    if (name === "number") showBrand();
    // A message goes as soon as the mistake is fixed; a new one waits for the blur.
    if (input.getAttribute("aria-invalid") === "true" && !checks[name](input.value)) show(name, undefined);
    if (name === "number" && fields.cvc.getAttribute("aria-invalid") === "true") check("cvc");
  });
  input.addEventListener("blur", function (e) {
    if (!input.value.trim() && input.getAttribute("aria-invalid") !== "true") return;
    // Leaving for a button (Pay, Cancel): no message now, or the button would move under the pointer.
    if (pressing || (e.relatedTarget && e.relatedTarget.type === "submit")) return;
    check(name);
  });
});
document.addEventListener("pointerdown", function (e) {
  if (!e.target.closest || !e.target.closest("[type=submit]")) return;
  pressing = true;
  setTimeout(function () { pressing = false; }, 1000);
}, true);
if (fields.number.value) {
  reformat(fields.number, formatters.number(fields.number.value));
  showBrand();
}

function summary(errors) {
  var box = document.getElementById("error-summary");
  if (!box) {
    box = document.createElement("div");
    box.id = "error-summary";
    box.className = "errors";
    box.setAttribute("role", "alert");
    box.tabIndex = -1;
    form.insertBefore(box, form.firstChild);
  }
  box.textContent = "";
  var heading = document.createElement("h2");
  heading.textContent = msg.error_summary;
  var list = document.createElement("ul");
  errors.forEach(function (e) {
    var item = document.createElement("li"), link = document.createElement("a");
    link.href = "#" + e.name;
    link.textContent = msg[e.key];
    item.appendChild(link);
    list.appendChild(item);
  });
  box.appendChild(heading);
  box.appendChild(list);
  document.title = msg.error_prefix + ": " + data.title;
  box.focus();
}

form.addEventListener("submit", function (e) {
  var errors = [];
  NAMES.forEach(function (name) {
    var key = check(name);
    if (key) errors.push({ name: name, key: key });
  });
  if (errors.length) {
    e.preventDefault();
    summary(errors);
  } else if (submitting) {
    e.preventDefault();
  } else {
    submitting = true;
  }
});
// A summary link moves focus to its field (a plain #fragment link only scrolls).
form.addEventListener("click", function (e) {
  var link = e.target.closest && e.target.closest("#error-summary a[href^='#']");
  if (!link) return;
  var target = document.getElementById(link.getAttribute("href").slice(1));
  if (!target) return;
  e.preventDefault();
  var label = form.querySelector("label[for='" + target.id + "']");
  (label || target).scrollIntoView({ block: "start" });
  target.focus({ preventScroll: true });
});
var initial = document.getElementById("error-summary");
if (initial) initial.focus();
})();
`;
