-- wrk script for the RequestId load test: checks every response (status
-- 200, an X-Request-Id header, a body equal to it) and writes the ids of
-- all threads, one per line, to the file named by $REQUEST_IDS_FILE, with a
-- last line "failures N".
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  ids = {}
  failures = 0
end

function response(status, headers, body)
  local id = nil
  for name, value in pairs(headers) do
    if string.lower(name) == "x-request-id" then id = value end
  end
  if status == 200 and id ~= nil and body == id then
    ids[#ids + 1] = id
  else
    failures = failures + 1
  end
end

function done(summary, latency, requests)
  local file = assert(io.open(os.getenv("REQUEST_IDS_FILE"), "w"))
  local total = 0
  for _, thread in ipairs(threads) do
    for _, id in ipairs(thread:get("ids")) do file:write(id, "\n") end
    total = total + thread:get("failures")
  end
  file:write("failures ", total, "\n")
  file:close()
end
