# SPDX-License-Identifier: MIT
# A private nginx for the fetch tests (sourced after lib.sh): nginx_start
# DIR PORT MAIN HTTP LOCATIONS writes DIR/nginx.conf serving DIR/www on
# 127.0.0.1:PORT (logs and temp files under DIR, as root it runs as root),
# with the extra directives MAIN (top level), HTTP (http block) and
# LOCATIONS (server block), starts it in the foreground in the background
# and waits up to 5 s for it to listen. Sets NGINX_PID (the caller kills it
# by that PID in its trap) and returns 1 when it did not come up (its error
# log is in DIR/logs/error.log).
nginx_start() {
	_nx=$1
	mkdir -p "$_nx/www" "$_nx/logs" "$_nx/tmp"
	_user=""
	[ "$(id -u)" = 0 ] && _user="user root;"
	cat >"$_nx/nginx.conf" <<NGINX_EOF
$_user
$3
daemon off;
pid $_nx/nginx.pid;
error_log $_nx/logs/error.log;
events { worker_connections 64; }
http {
	access_log off;
	default_type application/octet-stream;
	client_body_temp_path $_nx/tmp/body;
	proxy_temp_path $_nx/tmp/proxy;
	fastcgi_temp_path $_nx/tmp/fastcgi;
	uwsgi_temp_path $_nx/tmp/uwsgi;
	scgi_temp_path $_nx/tmp/scgi;
	$4
	server {
		listen 127.0.0.1:$2;
		root $_nx/www;
		$5
	}
}
NGINX_EOF
	nginx -c "$_nx/nginx.conf" -p "$_nx" -e "$_nx/logs/error.log" >/dev/null 2>&1 </dev/null &
	NGINX_PID=$!
	_n=0
	while ! ss -Hltn "( sport = :$2 )" 2>/dev/null | grep -q . && [ $_n -lt 50 ]; do sleep 0.1; _n=$((_n + 1)); done
	[ $_n -lt 50 ]
}
