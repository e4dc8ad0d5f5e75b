-- wrk script of the persistence benchmark: POST /counter/cN/increment over 1,000 counters.
local n = 0
request = function()
  n = n + 1
  return wrk.format("POST", "/counter/c" .. (n % 1000) .. "/increment", {["Content-Length"] = "0"}, "")
end
