"""The virtio-rdma device ABI, read from include/uapi/linux/virtio_rdma.h.

The test tools that talk to the device directly (ctrl_invalid.py,
devinfo_check.py) take every command code, status, flag and struct layout
from the header at run time instead of restating them: a field that moves
moves the test with it, and a field or constant that is renamed or removed
makes the test stop with its name instead of sending stale bytes.

    abi = Abi.load()
    abi.c('CMD_QUERY_DEVICE')              # VIRTIO_RDMA_CMD_QUERY_DEVICE
    abi.group('STATUS_')                   # {'OK': 0, 'INVAL': 1, ...}
    req = abi.s('create_cq_req')           # struct virtio_rdma_create_cq_req
    req.size, req.offset('depth')
    req.pack(ring_addr=..., depth=16)      # unnamed fields are zero
    abi.s('query_qp_resp').unpack(data)    # nested dicts; u8 arrays as bytes

The parser knows what a uapi header may contain: #defines of integer
expressions, structs and unions of the fixed-width __u/__le/__be types,
arrays sized by literals or #defines, nested structs and unions, and
static inline functions (skipped).  Anything else in a struct (bitfields,
attributes, unknown types) is an error, not a guess.  Layouts follow the C
rules for these types: each member at its natural alignment, a struct
padded to its largest member's alignment.
"""
import os
import re
import struct

PREFIX = 'VIRTIO_RDMA_'
HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                      'include', 'uapi', 'linux', 'virtio_rdma.h')

# type -> struct format character (size and alignment are the same)
SCALARS = {
    '__u8': '<B', '__s8': '<b',
    '__u16': '<H', '__le16': '<H', '__be16': '>H', '__s16': '<h',
    '__u32': '<I', '__le32': '<I', '__be32': '>I', '__s32': '<i',
    '__u64': '<Q', '__le64': '<Q', '__be64': '>Q', '__s64': '<q',
}


class AbiError(Exception):
    pass


class Scalar:
    def __init__(self, fmt):
        self.fmt = fmt
        self.size = self.align = struct.calcsize(fmt)

    def pack_into(self, buf, off, value):
        struct.pack_into(self.fmt, buf, off, value)

    def unpack_from(self, buf, off):
        return struct.unpack_from(self.fmt, buf, off)[0]


class Field:
    def __init__(self, name, ctype, count):
        self.name, self.type, self.count = name, ctype, count
        self.offset = 0

    @property
    def size(self):
        return self.type.size * (self.count or 1)


class Struct:
    """A struct or union laid out as the C compiler does for these types."""

    def __init__(self, name, fields, union=False):
        self.name = name
        self.fields = {}
        off = align = 0
        for f in fields:
            if f.name in self.fields:
                raise AbiError(f'{name}: field {f.name} twice')
            a = f.type.align
            align = max(align, a)
            if union:
                f.offset = 0
                off = max(off, f.size)
            else:
                off = (off + a - 1) // a * a
                f.offset = off
                off += f.size
            self.fields[f.name] = f
        self.align = align or 1
        self.size = (off + self.align - 1) // self.align * self.align

    def field(self, path):
        """(offset, Field) of 'a.b.c' inside this struct."""
        off, st, f = 0, self, None
        for part in path.split('.'):
            if not isinstance(st, Struct) or part not in st.fields:
                raise AbiError(f'struct {self.name} has no field {path}')
            f = st.fields[part]
            off += f.offset
            st = f.type
        return off, f

    def offset(self, path):
        return self.field(path)[0]

    def pack(self, **values):
        buf = bytearray(self.size)
        self.pack_into(buf, 0, values)
        return bytes(buf)

    def pack_into(self, buf, off, values):
        if isinstance(values, (bytes, bytearray)):
            if len(values) != self.size:
                raise AbiError(f'{self.name}: {len(values)} bytes for a '
                               f'{self.size}-byte struct')
            buf[off:off + self.size] = values
            return
        for key, value in values.items():
            if key not in self.fields:
                raise AbiError(f'struct {self.name} has no field {key}')
            f = self.fields[key]
            base = off + f.offset
            if f.count is None:
                f.type.pack_into(buf, base, value)
            elif isinstance(f.type, Scalar) and f.type.size == 1 and \
                    isinstance(value, (bytes, bytearray)):
                if len(value) > f.count:
                    raise AbiError(f'{self.name}.{key}: {len(value)} bytes, '
                                   f'room for {f.count}')
                buf[base:base + len(value)] = value
            else:
                if len(value) > f.count:
                    raise AbiError(f'{self.name}.{key}: {len(value)} '
                                   f'elements, room for {f.count}')
                for i, v in enumerate(value):
                    f.type.pack_into(buf, base + i * f.type.size, v)

    def unpack(self, buf, off=0):
        if len(buf) < off + self.size:
            raise AbiError(f'{self.name}: {len(buf) - off} bytes, want '
                           f'{self.size}')
        return self.unpack_from(buf, off)

    def unpack_from(self, buf, off):
        out = {}
        for f in self.fields.values():
            base = off + f.offset
            if f.count is None:
                out[f.name] = f.type.unpack_from(buf, base)
            elif isinstance(f.type, Scalar) and f.type.size == 1:
                out[f.name] = bytes(buf[base:base + f.count])
            else:
                out[f.name] = [f.type.unpack_from(buf, base + i * f.type.size)
                               for i in range(f.count)]
        return out


def _strip(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return text.replace('\\\n', ' ')


_INT = re.compile(r'(0[xX][0-9a-fA-F]+|[1-9]\d*|0)[uUlL]*')


def _eval(expr, consts):
    """An integer #define value, or None when it is not one."""
    expr = expr.strip()
    m = _INT.fullmatch(expr)          # most values: a plain literal
    if m:
        return int(m.group(1), 0)
    if expr in consts:
        return consts[expr]
    expr = re.sub(r'\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b', r'\1', expr.strip())
    if not expr or not re.fullmatch(r'[\w\s()+\-*/%<>|&~^]+', expr):
        return None
    expr = re.sub(r'[A-Za-z_]\w*',
                  lambda m: str(consts[m.group(0)]) if m.group(0) in consts
                  else m.group(0), expr)
    if re.search(r'[A-Za-z_]', re.sub(r'0[xX][0-9a-fA-F]+', '', expr)):
        return None
    try:
        value = eval(expr.replace('/', '//'), {'__builtins__': {}})  # digits and operators only
    except Exception:   # noqa: BLE001 - an expression we do not evaluate
        return None
    return value if isinstance(value, int) else None


class _Tokens:
    def __init__(self, text):
        self.t = re.findall(r'[A-Za-z_]\w*|0[xX][0-9a-fA-F]+\w*|\d+\w*|\S', text)
        self.i = 0

    def peek(self, k=0):
        j = self.i + k
        return self.t[j] if j < len(self.t) else None

    def next(self):
        tok = self.peek()
        if tok is None:
            raise AbiError('unexpected end of header')
        self.i += 1
        return tok

    def expect(self, tok):
        got = self.next()
        if got != tok:
            raise AbiError(f'expected {tok!r}, got {got!r} (token {self.i})')

    def skip_braces(self):
        self.expect('{')
        depth = 1
        while depth:
            tok = self.next()
            depth += (tok == '{') - (tok == '}')


class Abi:
    def __init__(self, text):
        self.consts = {}
        self.structs = {}
        body = []
        for line in _strip(text).splitlines():
            m = re.match(r'\s*#\s*define\s+([A-Za-z_]\w*)(?![\w(])\s*(.*)$', line)
            if m:
                value = _eval(m.group(2), self.consts)
                if value is not None:
                    self.consts[m.group(1)] = value
            elif not re.match(r'\s*#', line):
                body.append(line)
        self._parse(_Tokens('\n'.join(body)))

    @classmethod
    def load(cls, path=HEADER):
        with open(path) as f:
            return cls(f.read())

    # --- constants ---------------------------------------------------------
    def c(self, name):
        """VIRTIO_RDMA_<name> (or a full name)."""
        for key in (PREFIX + name, name):
            if key in self.consts:
                return self.consts[key]
        raise AbiError(f'{PREFIX}{name} is not defined in the header')

    def group(self, stem):
        """{suffix: value} of every VIRTIO_RDMA_<stem><suffix>."""
        p = PREFIX + stem
        out = {k[len(p):]: v for k, v in self.consts.items() if k.startswith(p)}
        if not out:
            raise AbiError(f'no {p}* constant in the header')
        return out

    # --- structs -------------------------------------------------------------
    def s(self, name):
        """struct virtio_rdma_<name> (or a full name)."""
        for key in ('virtio_rdma_' + name, name):
            if key in self.structs:
                return self.structs[key]
        raise AbiError(f'struct virtio_rdma_{name} is not in the header')

    def _parse(self, tk):
        while tk.peek() is not None:
            tok = tk.next()
            if tok in ('struct', 'union') and tk.peek(1) == '{' and \
                    re.fullmatch(r'[A-Za-z_]\w*', tk.peek() or ''):
                name = tk.next()
                self.structs[name] = self._body(tk, name, tok == 'union')
                tk.expect(';')
            elif tok == '{':      # a function body (static inline helpers)
                tk.i -= 1
                tk.skip_braces()

    def _body(self, tk, name, union):
        tk.expect('{')
        fields = []
        while tk.peek() != '}':
            fields.extend(self._member(tk, name))
        tk.expect('}')
        return Struct(name, fields, union)

    def _member(self, tk, outer):
        tok = tk.next()
        if tok in ('struct', 'union'):
            if tk.peek() == '{':
                ctype = self._body(tk, f'{outer}.<{tok}>', tok == 'union')
            else:
                tag = tk.next()
                if tag not in self.structs:
                    raise AbiError(f'{outer}: struct {tag} used before defined')
                ctype = self.structs[tag]
                if tk.peek() == '{':
                    raise AbiError(f'{outer}: nested definition of {tag}')
        elif tok in SCALARS:
            ctype = Scalar(SCALARS[tok])
        else:
            raise AbiError(f'{outer}: unsupported member type {tok!r}')
        if tk.peek() == ';':
            raise AbiError(f'{outer}: anonymous {tok} member (not supported)')
        out = []
        while True:
            fname = tk.next()
            if not re.fullmatch(r'[A-Za-z_]\w*', fname):
                raise AbiError(f'{outer}: unexpected {fname!r}')
            count = None
            while tk.peek() == '[':
                tk.next()
                expr = []
                while tk.peek() != ']':
                    expr.append(tk.next())
                tk.expect(']')
                n = _eval(' '.join(expr), self.consts)
                if n is None:
                    raise AbiError(f'{outer}.{fname}: array size {" ".join(expr)!r}')
                count = n if count is None else count * n
            out.append(Field(fname, ctype, count))
            sep = tk.next()
            if sep == ';':
                return out
            if sep != ',':
                raise AbiError(f'{outer}.{fname}: unsupported declarator ({sep!r})')


class RawCmd:
    """One control command at a time through the driver's raw_cmd debugfs
    file (drivers/infiniband/hw/virtio_rdma/vrdma_debugfs.c): a write of
    { __le32 resp_len; __le32 reserved; } and the request, then a read of
    exactly resp_len bytes, the device-writable part of the chain."""

    def __init__(self, abi, path):
        self.abi = abi
        self.fd = os.open(path, os.O_RDWR)

    def close(self):
        os.close(self.fd)

    def raw(self, req, resp_len):
        """REQ as the chain's readable part, RESP_LEN writable bytes."""
        os.write(self.fd, struct.pack('<II', resp_len, 0) + req)
        data = b''
        while len(data) < resp_len:
            chunk = os.read(self.fd, resp_len - len(data))
            if not chunk:
                break
            data += chunk
        return data

    def cmd(self, code, body=b'', resp_size=0):
        """A well-formed command: returns (status, response body)."""
        hdr, rhdr = self.abi.s('cmd_hdr'), self.abi.s('cmd_resp_hdr')
        data = self.raw(hdr.pack(cmd=code) + body, rhdr.size + resp_size)
        status = rhdr.unpack(data)['status'] if len(data) >= rhdr.size else None
        return status, data[rhdr.size:]
