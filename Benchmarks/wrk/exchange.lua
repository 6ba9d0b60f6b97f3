-- POST /auth/apple/exchange, cycling through Apple identity tokens of distinct users
-- (TOKENS_FILE, one per line: `issuer-bench tokens --kind apple`). Reusing a token is a
-- legitimate retried sign-in; every exchange verifies it and writes a session.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local bodies, next = {}, 1
function init(args)
  for line in io.lines(os.getenv("TOKENS_FILE")) do
    if #line > 0 then bodies[#bodies + 1] = '{"id_token":"' .. line .. '"}' end
  end
  next = (index * 7919) % #bodies + 1
end

function request()
  local body = bodies[next]
  next = next % #bodies + 1
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
