// gantry_floor: the least a process of gantry's design can do before it is ready, for
// bench_vs_floor to measure gantry against in the same run. It links the libraries gantry
// links (Poco Foundation/Net/NetSSL/JSON/Data/SQLite, libsodium, sqlite3), opens a WAL
// database the way the store does (DATA_DIR/gantry.db, one write at boot as the heartbeat
// makes), prints the same `ready` log line, then answers each stdin line with one stdout
// line until end of input. The TLS context is built lazily: only a line `tls` builds it,
// as gantry builds one only for its first HTTPS connection.
#include <Poco/Data/SQLite/Connector.h>
#include <Poco/Data/SQLite/Utility.h>
#include <Poco/Data/Session.h>
#include <Poco/JSON/Object.h>
#include <Poco/Net/Context.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/Net/SocketAddress.h>
#include <sodium.h>
#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

sqlite3* openDatabase(Poco::Data::Session& session) {
  sqlite3* db = Poco::Data::SQLite::Utility::dbHandle(session);
  sqlite3_busy_timeout(db, 5000);
  for (const char* sql :
       {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON",
        "CREATE TABLE IF NOT EXISTS boot (pid INTEGER, at INTEGER)",
        "INSERT INTO boot VALUES (1, 1)"}) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
      std::fprintf(stderr, "floor: %s: %s\n", sql, sqlite3_errmsg(db));
      std::exit(1);
    }
  }
  return db;
}

Poco::Net::Context::Ptr tlsContext() {
  Poco::Net::initializeSSL();
  return new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "/etc/ssl/certs",
                                Poco::Net::Context::VERIFY_RELAXED, 9, false);
}

}  // namespace

int main() {
  const char* dir = std::getenv("DATA_DIR");
  if (dir == nullptr) {
    std::fprintf(stderr, "floor: DATA_DIR is not set\n");
    return 1;
  }
  if (sodium_init() < 0) return 1;
  Poco::Data::SQLite::Connector::registerConnector();
  Poco::Data::Session session("SQLite", std::string(dir) + "/gantry.db");
  openDatabase(session);
  Poco::JSON::Object ready;
  ready.set("level", "info");
  ready.set("msg", "ready");
  ready.stringify(std::cerr);
  std::cerr << std::endl;

  Poco::Net::Context::Ptr tls;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "tls" && tls.isNull()) tls = tlsContext();
    std::cout << "floor: " << line << std::endl;
  }
  Poco::Net::SocketAddress unused("127.0.0.1", 0);  // keeps Poco::Net a real dependency
  return unused.port() == 0 ? 0 : 1;
}
