-- wrk script: POST /v1/receipts with a form body and a unique receipt_id per request.
-- Usage: wrk -t2 -c64 -d10s -s benchmarks/receipts.lua URL -- RUN_ID
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

function init(args)
  run = args[1] or "0"
  counter = 0
  prefix = "b" .. run .. "-t" .. tid .. "-"
end

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["User-Agent"] = "RichPushBench/1 (wrk)"

function request()
  counter = counter + 1
  local body = "push_id=bench-" .. (counter % 50)
    .. "&event=delivered&receipt_id=" .. prefix .. counter
    .. "&outcome=media_attached&elapsed_ms=" .. (counter % 3000)
    .. "&media_bytes=89696&media_type=public.jpeg"
  return wrk.format(nil, "/v1/receipts", nil, body)
end
