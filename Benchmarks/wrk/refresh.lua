-- POST /oauth2/token, grant_type=refresh_token, every connection-slot following a rotation chain.
-- TOKENS_FILE holds fresh refresh tokens, one per line (`issuer-bench tokens --kind refresh`);
-- each wrk thread takes every NTHREADS-th one as a queue. request() sends the queue's head;
-- response() queues the successor from the answer, whichever request it answers: chains are
-- interchangeable, so no token is ever sent twice and nothing needs to know which connection
-- sent which. A failed rotation ends its chain (the error is counted); a queue that runs dry
-- sends an empty token, which is refused and counted too.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local queue, first, last = {}, 1, 0
local client = os.getenv("CLIENT_ID") or "clanboards-mobile"

function init(args)
  local every, n = tonumber(os.getenv("NTHREADS") or "2"), 0
  for line in io.lines(os.getenv("TOKENS_FILE")) do
    if #line > 0 then
      if n % every == index then last = last + 1; queue[last] = line end
      n = n + 1
    end
  end
end

function request()
  local token = ""
  if first <= last then token = queue[first]; queue[first] = nil; first = first + 1 end
  return wrk.format("POST", nil, {["Content-Type"] = "application/x-www-form-urlencoded"},
    "grant_type=refresh_token&client_id=" .. client .. "&refresh_token=" .. token)
end

function response(status, headers, body)
  local successor = status == 200 and body and body:match('"refresh_token"%s*:%s*"([^"]+)"')
  if successor then last = last + 1; queue[last] = successor end
end
